"""EpisodeEventLog.deferred: step logs built only when read; queries answered from the flat events."""

from __future__ import annotations

from maze.env import EventRecord
from maze.env.core.events import EventColumns
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.step_event_log import StepEventLog


class DockEvents:
    def ship_docked(self, ship: str) -> None:
        """A ship docked."""

    def crane_idle(self) -> None:
        """A crane waited."""

    def tide(self, metres: float) -> None:
        """Only in the built step logs."""


DOCKED = EventRecord(DockEvents, DockEvents.ship_docked, {"ship": "Ada"})
IDLE = EventRecord(DockEvents, DockEvents.crane_idle, {})
TIDE = EventRecord(DockEvents, DockEvents.tide, {"metres": 2.0})


def deferred_log(built: list) -> EpisodeEventLog:
    fired = EventColumns([DOCKED, IDLE, DOCKED])

    def build() -> list[StepEventLog]:
        built.append(True)
        return [StepEventLog(3, [DOCKED, TIDE]), StepEventLog(4, [IDLE, DOCKED, TIDE])]

    return EpisodeEventLog.deferred("ep", build, env_times=[3, 4], query=fired.query, built_only=(DockEvents.tide,))


def test_queries_and_lengths_do_not_build_the_step_logs():
    built: list = []
    log = deferred_log(built)
    assert list(log.query_events(DockEvents.ship_docked)) == [DOCKED, DOCKED]
    assert list(log.query_events([DockEvents.crane_idle, DockEvents.ship_docked])) == [DOCKED, IDLE, DOCKED]
    assert len(log) == 2 and log.step_env_times() == [3, 4]
    assert built == []


def test_reading_step_logs_or_built_only_events_builds_them_once():
    built: list = []
    log = deferred_log(built)
    assert list(log.query_events(DockEvents.tide)) == [TIDE, TIDE]
    assert [step.env_time for step in log.step_event_logs] == [3, 4] and built == [True]
    log.append(StepEventLog(5, [IDLE]))
    assert len(log) == 3 and log.step_env_times() == [3, 4, 5] and built == [True]
    assert list(log.query_events(DockEvents.crane_idle)) == [IDLE, IDLE]


def test_a_deferred_log_equals_the_same_log_built_eagerly():
    eager = EpisodeEventLog("ep", [StepEventLog(3, [DOCKED, TIDE]), StepEventLog(4, [IDLE, DOCKED, TIDE])])
    assert deferred_log([]) == eager and eager.step_env_times() == [3, 4]
    assert deferred_log([]) != EpisodeEventLog("other", eager.step_event_logs)
    assert repr(eager).startswith("EpisodeEventLog(episode_id='ep'")
