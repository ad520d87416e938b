"""The events of one episode, step by step."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from maze.env.core.events import EventRecord
from maze.env.log_events.step_event_log import EventSpec, StepEventLog

__all__ = ["EpisodeEventLog"]


@dataclass
class EpisodeEventLog:
    """The step event logs of one episode, in step order.

    Attributes:
        episode_id: Unique id of the episode.
        step_event_logs: One log per env step.
    """

    episode_id: str
    step_event_logs: list[StepEventLog] = field(default_factory=list)

    def append(self, step_event_log: StepEventLog) -> None:
        """Adds the log of the next step."""
        self.step_event_logs.append(step_event_log)

    def query_events(self, event_spec: EventSpec) -> Iterator[EventRecord]:
        """Yields the events of the given event method(s) over the whole episode."""
        for step_event_log in self.step_event_logs:
            yield from step_event_log.query_events(event_spec)

    def __len__(self) -> int:
        return len(self.step_event_logs)
