"""Writers as instances: a LogStatsWrapper and a TrajectoryRecordingWrapper given writers of their own write only there.

Two envs of one process record to different places, and the process-wide registries (which a
runner or another env may use at the same time) get none of their records.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

import numpy as np
import pytest
from maze.env.examples.cutting_2d import maze_env_factory
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.log_events_writer import LogEventsWriter
from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry
from maze.env.log_stats.global_state import clear_global_state, increment_log_step, register_log_stats_writer
from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.writers import LogStatsWriter
from maze.env.trajectory_recording.records import TrajectoryRecord
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriter, TrajectoryWriterRegistry
from maze.env.wrappers import LogStatsWrapper, TrajectoryRecordingWrapper


class StatsWrites(LogStatsWriter):
    """Keeps every statistics write: (prefix, step, statistics)."""

    def __init__(self) -> None:
        self.writes: list[tuple[Optional[str], int, LogStats]] = []

    def write(self, path: Optional[str], step: int, stats: LogStats) -> None:
        self.writes.append((path, step, dict(stats)))


class EventLogs(LogEventsWriter):
    """Keeps every episode's event log."""

    def __init__(self) -> None:
        self.logs: list[EpisodeEventLog] = []

    def write(self, episode_event_log: EpisodeEventLog) -> None:
        self.logs.append(episode_event_log)


class Trajectories(TrajectoryWriter):
    """Keeps every episode's trajectory record."""

    def __init__(self) -> None:
        self.records: list[TrajectoryRecord] = []

    def write(self, episode_record: TrajectoryRecord) -> None:
        self.records.append(episode_record)


@pytest.fixture
def process_wide() -> Iterator[tuple[StatsWrites, EventLogs, Trajectories]]:
    """Writers registered for the whole process (they must receive nothing); unregistered afterwards."""
    clear_global_state()
    writers = StatsWrites(), EventLogs(), Trajectories()
    register_log_stats_writer(writers[0])
    LogEventsWriterRegistry.register_writer(writers[1])
    TrajectoryWriterRegistry.register_writer(writers[2])
    yield writers
    LogEventsWriterRegistry.unregister_writer(writers[1])
    TrajectoryWriterRegistry.unregister_writer(writers[2])
    clear_global_state()


def _env_with_own_writers(steps: int, seed: int) -> tuple[Any, StatsWrites, EventLogs, Trajectories]:
    """A Cutting-2D env with its own writers, after one episode of ``steps`` random steps and one epoch write."""
    stats, events, trajectories = StatsWrites(), EventLogs(), Trajectories()
    env = maze_env_factory(max_pieces_in_inventory=20, raw_piece_size=(100, 100), static_demand=(30, 15))
    env = LogStatsWrapper(
        TrajectoryRecordingWrapper(env, writers=[trajectories]),
        logging_prefix="own",
        stats_writers=[stats],
        event_log_writers=[events],
    )
    env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(steps):
        env.step(env.action_space.sample())
    env.reset()  # ends the episode: its statistics, event log and trajectory are handed on
    env.write_epoch_stats()
    return env, stats, events, trajectories


def test_two_envs_write_to_their_own_writers_and_the_process_wide_ones_get_nothing(
    process_wide: tuple[StatsWrites, EventLogs, Trajectories],
) -> None:
    increment_log_step()  # the own stats writers are stamped with the process's log step
    _, first_stats, first_events, first_trajectories = _env_with_own_writers(steps=5, seed=1)
    _, second_stats, second_events, second_trajectories = _env_with_own_writers(steps=9, seed=2)

    for stats, events, trajectories, steps in (
        (first_stats, first_events, first_trajectories, 5),
        (second_stats, second_events, second_trajectories, 9),
    ):
        ((prefix, step, written),) = stats.writes
        assert (prefix, step) == ("own", 1)
        step_counts = [value for key, value in written.items() if key.label == "total_step_count"]
        assert step_counts and np.isclose(step_counts[0], steps)
        assert len(events.logs) == 1 and len(events.logs[0].step_event_logs) == steps
        assert len(trajectories.records) == 1 and len(trajectories.records[0]) == steps
    assert process_wide[0].writes == [] and process_wide[1].logs == [] and process_wide[2].records == []


def test_writers_of_the_wrong_kind_are_refused_when_the_wrapper_is_built() -> None:
    env = maze_env_factory(max_pieces_in_inventory=20, raw_piece_size=(100, 100), static_demand=(30, 15))
    with pytest.raises(TypeError, match="stats_writers must be LogStatsWriters"):
        LogStatsWrapper(env, stats_writers=[EventLogs()])  # type: ignore[list-item]
    with pytest.raises(
        TypeError, match=r"TrajectoryWriterRegistry \(own writers\).register_writer expects a Trajectory"
    ):
        TrajectoryRecordingWrapper(env, writers=[StatsWrites()])  # type: ignore[list-item]
