"""The events of one episode, step by step."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Optional

from maze.env.core.events import EventRecord, as_event_specs
from maze.env.log_events.step_event_log import EventSpec, StepEventLog

__all__ = ["EpisodeEventLog"]


class _DeferredSteps:
    """How to build the step logs of an episode, and what can be answered without them."""

    __slots__ = ("build", "env_times", "query", "built_only")

    def __init__(
        self,
        build: Callable[[], list[StepEventLog]],
        env_times: list[int],
        query: Callable[[tuple[Callable, ...]], list[EventRecord]],
        built_only: Collection[Callable],
    ) -> None:
        self.build = build
        self.env_times = env_times
        self.query = query
        self.built_only = built_only


class EpisodeEventLog:
    """The step event logs of one episode, in step order.

    An event log is built from its step logs, or — as the statistics wrapper does at every
    episode end — with :meth:`deferred`, where the step logs are only built when somebody
    reads them: a KPI calculator that only queries events gets them from the episode's
    events as the statistics keep them.

    Attributes:
        episode_id: Unique id of the episode.
    """

    def __init__(self, episode_id: str, step_event_logs: Optional[list[StepEventLog]] = None) -> None:
        self.episode_id = episode_id
        self._step_event_logs: list[StepEventLog] = [] if step_event_logs is None else step_event_logs
        self._deferred: Optional[_DeferredSteps] = None

    @classmethod
    def deferred(
        cls,
        episode_id: str,
        build: Callable[[], list[StepEventLog]],
        env_times: list[int],
        query: Callable[[tuple[Callable, ...]], list[EventRecord]],
        built_only: Collection[Callable] = (),
    ) -> EpisodeEventLog:
        """An event log whose step logs are built the first time they are needed.

        Args:
            episode_id: Unique id of the episode.
            build: Returns the step logs (called at most once).
            env_times: The env time of each step log ``build`` returns.
            query: Returns the events of the given event methods (never one of
                ``built_only``) over all step logs, in step order, without building them.
            built_only: Event methods whose events only ``build`` creates; querying them
                builds the step logs.
        """
        log = cls(episode_id)
        log._deferred = _DeferredSteps(build, env_times, query, built_only)
        return log

    @property
    def step_event_logs(self) -> list[StepEventLog]:
        """One log per env step."""
        deferred = self._deferred
        if deferred is not None:
            self._step_event_logs = deferred.build()
            self._deferred = None
        return self._step_event_logs

    def step_env_times(self) -> list[int]:
        """The env time of each step log (without building deferred step logs)."""
        if self._deferred is not None:
            return self._deferred.env_times
        return [step_event_log.env_time for step_event_log in self._step_event_logs]

    def append(self, step_event_log: StepEventLog) -> None:
        """Adds the log of the next step."""
        self.step_event_logs.append(step_event_log)

    def query_events(self, event_spec: EventSpec) -> Iterator[EventRecord]:
        """Yields the events of the given event method(s) over the whole episode."""
        specs = as_event_specs(event_spec)
        deferred = self._deferred
        if deferred is not None and not any(spec in deferred.built_only for spec in specs):
            return iter(deferred.query(specs))
        return (event for step_event_log in self.step_event_logs for event in step_event_log.query_events(specs))

    def __len__(self) -> int:
        if self._deferred is not None:
            return len(self._deferred.env_times)
        return len(self._step_event_logs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EpisodeEventLog):
            return NotImplemented
        return self.episode_id == other.episode_id and self.step_event_logs == other.step_event_logs

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"EpisodeEventLog(episode_id={self.episode_id!r}, step_event_logs={self.step_event_logs!r})"
