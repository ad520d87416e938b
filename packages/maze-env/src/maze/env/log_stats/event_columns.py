"""EventColumns: the events of many steps, kept as three parallel lists instead of records.

Statistics keep the events of a whole episode until it ends. Kept as
:class:`~maze.env.core.events.EventRecord` tuples, every event would be one more object
for Python's garbage collector to track: the records of a long episode survive into the
oldest generation, and the full collections they trigger cost more than aggregating them.
Columns keep only the topic, method and attributes of each event; the attribute dicts of
events fired with plain values (numbers, strings) are not tracked by the collector at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

from maze.env.core.events import EventRecord

__all__ = ["EventColumns"]

_TOPIC = itemgetter(0)
_METHOD = itemgetter(1)
_ATTRIBUTES = itemgetter(2)
_new_tuple = tuple.__new__


class EventColumns:
    """Events in firing order, column by column.

    Attributes:
        topics: The topic class of each event.
        methods: The event method of each event.
        attributes: The attributes of each event.
    """

    __slots__ = ("topics", "methods", "attributes")

    def __init__(self, events: Sequence[EventRecord] = ()) -> None:
        self.topics: list[type] = []
        self.methods: list[Callable] = []
        self.attributes: list[dict[str, Any]] = []
        if events:
            self.extend(events)

    def extend(self, events: Sequence[EventRecord]) -> None:
        """Appends events (records are not kept)."""
        self.topics.extend(map(_TOPIC, events))
        self.methods.extend(map(_METHOD, events))
        self.attributes.extend(map(_ATTRIBUTES, events))

    def extend_columns(self, other: EventColumns) -> None:
        """Appends the events of other columns."""
        self.topics.extend(other.topics)
        self.methods.extend(other.methods)
        self.attributes.extend(other.attributes)

    def records(self, start: int = 0, end: int | None = None) -> list[EventRecord]:
        """The events ``start`` to ``end`` (None: the last) as records."""
        window = slice(start, end)
        return [
            _new_tuple(EventRecord, fields)
            for fields in zip(self.topics[window], self.methods[window], self.attributes[window], strict=True)
        ]

    def query(self, specs: tuple[Callable, ...]) -> list[EventRecord]:
        """The events of the event methods ``specs``, as records in firing order."""
        methods = self.methods
        if len(specs) == 1:
            spec = specs[0]
            positions = [position for position, method in enumerate(methods) if method is spec]
        else:
            positions = [position for position, method in enumerate(methods) if method in specs]
        topics, attributes = self.topics, self.attributes
        return [
            _new_tuple(EventRecord, (topics[position], methods[position], attributes[position]))
            for position in positions
        ]

    def __len__(self) -> int:
        return len(self.methods)
