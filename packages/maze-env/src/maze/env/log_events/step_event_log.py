"""The events fired during one env step."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from maze.env.core.events import EventRecord, as_event_specs
from maze.env.utils.allow_list import trajectory_data

__all__ = ["StepEventLog", "EventSpec"]

EventSpec = Callable | Iterable[Callable]
"""One event method of a topic class (``InventoryEvents.piece_replenished``) or several."""


@trajectory_data
@dataclass
class StepEventLog:
    """The events of one env step.

    Attributes:
        env_time: Env time of the step (see ``TimeEnvMixin.get_env_time``).
        events: The fired events, in firing order.
    """

    env_time: int
    events: list[EventRecord] = field(default_factory=list)

    def query_events(self, event_spec: EventSpec) -> Iterator[EventRecord]:
        """Yields the events of the given event method(s)."""
        specs = as_event_specs(event_spec)
        return (event for event in self.events if event.interface_method in specs)

    def __iter__(self) -> Iterator[EventRecord]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)
