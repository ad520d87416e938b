"""A minimal event system: topics are plain classes, subscribers collect what they asked for.

An *event topic* is a plain class whose methods declare events (their keyword arguments
are the event's attributes). A :class:`Pubsub` hands out topic proxies; calling
``proxy.some_event(x=1)`` records the event and delivers it as an :class:`EventRecord` to
every :class:`Subscriber` registered for that topic. The events of the current env step are
kept as :class:`EventColumns` (a sequence of records, stored column by column) and cleared
by :meth:`EventService.clear_step_events` when the next step begins.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from itertools import compress
from operator import itemgetter
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Optional, TypeVar, overload

from maze.env.core._meta import StackTransparentMeta
from maze.env.utils.allow_list import trajectory_data

__all__ = ["EventRecord", "EventColumns", "Subscriber", "EventService", "Pubsub"]

TopicType = TypeVar("TopicType")


class _EventFields(NamedTuple):
    """The fields of an :class:`EventRecord` (a named tuple)."""

    interface_class: type
    interface_method: Callable
    attributes: dict[str, Any]


@trajectory_data
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
_TOPIC = itemgetter(0)
_METHOD = itemgetter(1)
_ATTRIBUTES = itemgetter(2)


def as_event_specs(event_spec: Callable | Iterable[Callable]) -> tuple[Callable, ...]:
    """The event methods of ``event_spec`` (one event method or several) as a tuple."""
    return (event_spec,) if callable(event_spec) else tuple(event_spec)


def _positions_of(items: list, item: Any) -> list[int]:
    """The positions of ``item`` in ``items`` (``list.index`` searches in C: fast for rare items)."""
    positions: list[int] = []
    position = -1
    try:
        while True:
            position = items.index(item, position + 1)
            positions.append(position)
    except ValueError:
        return positions


def _new_record(topic: type, method: Callable, attributes: dict[str, Any]) -> EventRecord:
    return _new_tuple(EventRecord, (topic, method, attributes))


class EventColumns(Sequence[EventRecord]):
    """Events in firing order, kept column by column; a sequence of :class:`EventRecord`.

    Components that keep events for long (the statistics keep a whole episode) keep them
    as columns: a record per event would be one more object for Python's garbage collector
    to track, and the full collections that many long-lived records trigger cost more
    than aggregating them. The attribute dicts of events fired with plain values (numbers,
    strings) are not tracked by the collector at all. Indexing and iterating build records.

    Attributes:
        topics: The topic class of each event.
        methods: The event method of each event.
        attributes: The attributes of each event.
    """

    __slots__ = ("topics", "methods", "attributes")

    def __init__(self, events: Iterable[EventRecord] = ()) -> None:
        self.topics: list[type] = []
        self.methods: list[Callable] = []
        self.attributes: list[dict[str, Any]] = []
        if events:
            self.extend(events)

    def append(self, event: EventRecord) -> None:
        """Appends one event (the record itself is not kept)."""
        self.topics.append(event[0])
        self.methods.append(event[1])
        self.attributes.append(event[2])

    def extend(self, events: Iterable[EventRecord]) -> None:
        """Appends events: records, or the events of other columns."""
        if isinstance(events, EventColumns):
            self.topics.extend(events.topics)
            self.methods.extend(events.methods)
            self.attributes.extend(events.attributes)
            return
        records = events if isinstance(events, (list, tuple)) else list(events)
        self.topics.extend(map(_TOPIC, records))
        self.methods.extend(map(_METHOD, records))
        self.attributes.extend(map(_ATTRIBUTES, records))

    def clear(self) -> None:
        """Removes all events (in place)."""
        self.topics.clear()
        self.methods.clear()
        self.attributes.clear()

    def query(self, specs: tuple[Callable, ...]) -> list[EventRecord]:
        """The events of the event methods ``specs``, as records in firing order."""
        methods = self.methods
        if len(specs) == 1:
            positions = _positions_of(methods, specs[0])
        else:
            positions = list(compress(range(len(methods)), map(specs.__contains__, methods)))
        topics, attributes = self.topics, self.attributes
        return [_new_record(topics[position], methods[position], attributes[position]) for position in positions]

    def __len__(self) -> int:
        return len(self.methods)

    @overload
    def __getitem__(self, index: int) -> EventRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[EventRecord]: ...

    def __getitem__(self, index: int | slice) -> EventRecord | list[EventRecord]:
        if isinstance(index, slice):
            return list(map(_new_record, self.topics[index], self.methods[index], self.attributes[index]))
        return _new_record(self.topics[index], self.methods[index], self.attributes[index])

    def __iter__(self) -> Iterator[EventRecord]:
        return map(_new_record, self.topics, self.methods, self.attributes)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (EventColumns, list)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"EventColumns({list(self)!r})"


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
        specs = as_event_specs(event_spec)
        return (event for event in self.events if event.interface_method in specs)

    def clear_events(self) -> None:
        """Forgets the events of the previous step."""
        self.events.clear()


class EventService:
    """Records the events of the current step and routes them to subscribers.

    Attributes:
        step_events: The events of the current step, in firing order. The columns are
            cleared in place, never replaced (event firers append to them directly).
    """

    def __init__(self) -> None:
        self._subscribers: dict[type, list[Subscriber]] = {}
        self._all_subscribers: list[Subscriber] = []
        self.step_events = EventColumns()

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
        step_events = self.step_events
        record_topic, record_method, record_attributes = (
            step_events.topics.append,
            step_events.methods.append,
            step_events.attributes.append,
        )
        # register_subscriber appends to this very list, so the firer sees later subscribers.
        subscribers = self._subscribers.setdefault(topic, [])

        def fire(**attributes: Any) -> None:
            record_topic(topic)
            record_method(method)
            record_attributes(attributes)
            if subscribers:
                event = _new_tuple(EventRecord, (topic, method, attributes))
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
        if name.startswith("_"):  # also while copy/pickle rebuild a proxy that has no _topic yet
            raise AttributeError(name)
        method = getattr(self._topic, name, None)
        if method is None or not callable(method):
            raise AttributeError(f"event topic {self._topic.__name__} declares no event {name!r}")
        fire = self._service.event_firer(self._topic, method)
        setattr(self, name, fire)  # later calls skip __getattr__
        return fire

    def __reduce__(self) -> tuple[type, tuple[type, EventService]]:
        """Copies and pickles rebuild the proxy on the copied service (cached firers write to the original's)."""
        return _TopicProxy, (self._topic, self._service)


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
