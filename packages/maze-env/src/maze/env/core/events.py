"""A minimal event system: topics are plain classes, subscribers collect what they asked for.

An *event topic* is a plain class whose methods declare events (their keyword arguments
are the event's attributes). A :class:`Pubsub` hands out topic proxies; calling
``proxy.some_event(x=1)`` records an :class:`EventRecord` and delivers it to every
:class:`Subscriber` registered for that topic. Records are kept for the current env step
and cleared by :meth:`EventService.clear_step_events` when the next step begins.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Optional, TypeVar

from maze.env.core._meta import StackTransparentMeta

__all__ = ["EventRecord", "Subscriber", "EventService", "Pubsub"]

TopicType = TypeVar("TopicType")


class _EventFields(NamedTuple):
    """The fields of an :class:`EventRecord` (a named tuple)."""

    interface_class: type
    interface_method: Callable
    attributes: dict[str, Any]


class EventRecord(_EventFields):
    """One fired event (immutable).

    A named tuple ``(interface_class, interface_method, attributes)`` underneath, so that
    firing an event costs little. Records compare equal when their fields do; a record
    never equals a plain tuple.

    Attributes:
        interface_class: The topic class that declares the event.
        interface_method: The (unbound) topic method that names the event.
        attributes: The keyword arguments the event was fired with.
    """

    __slots__ = ()

    def __new__(
        cls, interface_class: type, interface_method: Callable, attributes: Optional[dict[str, Any]] = None
    ) -> EventRecord:
        """A record of ``interface_method`` of ``interface_class`` fired with ``attributes`` (None: none)."""
        return _new_tuple(cls, (interface_class, interface_method, {} if attributes is None else attributes))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and _tuple_eq(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__


_new_tuple = tuple.__new__
_tuple_eq = tuple.__eq__


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
    """Records the events of the current step and routes them to subscribers.

    Attributes:
        step_events: The events of the current step, in firing order. The list is cleared
            in place, never replaced (event firers append to it directly).
    """

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

    def event_firer(self, topic: type, method: Callable) -> Callable[..., None]:
        """A function firing the event ``method`` of ``topic``: its keyword arguments are the attributes.

        Calling it is what :meth:`notify_event` with a new :class:`EventRecord` does, only
        cheaper; subscribers registered later receive the events too.
        """
        record = self.step_events.append
        # register_subscriber appends to this very list, so the firer sees later subscribers.
        subscribers = self._subscribers.setdefault(topic, [])

        def fire(**attributes: Any) -> None:
            event = _new_tuple(EventRecord, (topic, method, attributes))
            record(event)
            if subscribers:
                for subscriber in subscribers:
                    subscriber.notify_event(event)

        return fire

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
        fire = self._service.event_firer(self._topic, method)
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
