"""A minimal event system: topics are plain classes, subscribers collect what they asked for.

An *event topic* is a plain class whose methods declare events (their keyword arguments
are the event's attributes). A :class:`Pubsub` hands out topic proxies; calling
``proxy.some_event(x=1)`` records an :class:`EventRecord` and delivers it to every
:class:`Subscriber` registered for that topic. Records are kept for the current env step
and cleared by :meth:`EventService.clear_step_events` when the next step begins.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, TypeVar

from maze.env.core._meta import StackTransparentMeta

__all__ = ["EventRecord", "Subscriber", "EventService", "Pubsub"]

TopicType = TypeVar("TopicType")


@dataclass(frozen=True)
class EventRecord:
    """One fired event.

    Attributes:
        interface_class: The topic class that declares the event.
        interface_method: The (unbound) topic method that names the event.
        attributes: The keyword arguments the event was fired with.
    """

    interface_class: type
    interface_method: Callable
    attributes: dict[str, Any] = field(default_factory=dict)


class Subscriber(metaclass=StackTransparentMeta):
    """Receives the events of the topics it lists in :meth:`get_interfaces`."""

    def __init__(self) -> None:
        self.events: list[EventRecord] = []

    @abstractmethod
    def get_interfaces(self) -> list[type]:
        """Topic classes this subscriber wants to receive."""

    def notify_event(self, event: EventRecord) -> None:
        """Stores a delivered event."""
        self.events.append(event)

    def query_events(self, event_spec: Callable | Iterable[Callable]) -> Iterator[EventRecord]:
        """Yields the stored events of one event method (or of several)."""
        specs = (event_spec,) if callable(event_spec) else tuple(event_spec)
        return (event for event in self.events if event.interface_method in specs)

    def clear_events(self) -> None:
        """Forgets the events of the previous step."""
        self.events.clear()


class EventService:
    """Records the events of the current step and routes them to subscribers."""

    def __init__(self) -> None:
        self._subscribers: dict[type, list[Subscriber]] = {}
        self._all_subscribers: list[Subscriber] = []
        self.step_events: list[EventRecord] = []

    def register_subscriber(self, subscriber: Subscriber) -> None:
        """Delivers future events of the subscriber's topics to it."""
        self._all_subscribers.append(subscriber)
        for interface in subscriber.get_interfaces():
            self._subscribers.setdefault(interface, []).append(subscriber)

    def notify_event(self, event: EventRecord) -> None:
        """Records an event and hands it to the subscribers of its topic."""
        self.step_events.append(event)
        for subscriber in self._subscribers.get(event.interface_class, ()):
            subscriber.notify_event(event)

    def clear_step_events(self) -> None:
        """Starts a new step: forgets recorded events, also in every subscriber."""
        self.step_events.clear()
        for subscriber in self._all_subscribers:
            subscriber.clear_events()


class _TopicProxy:
    """Stands in for a topic instance; each method call fires that event."""

    def __init__(self, topic: type, service: EventService) -> None:
        self._topic = topic
        self._service = service

    def __getattr__(self, name: str) -> Callable[..., None]:
        method = getattr(self._topic, name, None)
        if method is None or not callable(method) or name.startswith("_"):
            raise AttributeError(f"event topic {self._topic.__name__} declares no event {name!r}")
        topic, service = self._topic, self._service

        def fire(**attributes: Any) -> None:
            service.notify_event(EventRecord(topic, method, attributes))

        setattr(self, name, fire)  # later calls skip __getattr__
        return fire


class Pubsub:
    """Message broker of one env: hands out topic proxies and registers subscribers."""

    def __init__(self, event_service: EventService) -> None:
        self.event_service = event_service

    def create_event_topic(self, topic: type[TopicType]) -> TopicType:
        """Returns a proxy whose method calls fire the events declared by ``topic``."""
        return _TopicProxy(topic, self.event_service)  # type: ignore[return-value]

    def register_subscriber(self, subscriber: Subscriber) -> None:
        """Delivers the events of the subscriber's topics to it."""
        self.event_service.register_subscriber(subscriber)
