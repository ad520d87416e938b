"""ParallelRolloutRunner: one table over all workers, worker outputs, failing and dying workers, reports."""

from __future__ import annotations

import errno
import os
import pickle
from pathlib import Path

import pytest
from maze.env import BaseEnvEvents, MazeSeeding
from maze.env.errors import ConfigurationError
from maze.env.log_events.log_events_writer import LogEventsWriterTSV
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.log_stats_env import stats_value
from maze.env.trajectory_recording.trajectory_files import TrajectoryWriterFile
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.rollout import (
    EpisodeStatsReport,
    ExceptionReport,
    ParallelRolloutRunner,
    RolloutJob,
    RolloutOutputError,
    RolloutProgress,
    RolloutWorkerError,
    SequentialRolloutRunner,
)
from rollout_support import CARTPOLE, RANDOM_POLICY, make_frame_env, reward_rows, trajectory_lengths

REWARD = BaseEnvEvents.reward


def reward_stat(runner: ParallelRolloutRunner, name: str) -> float:
    return stats_value(runner.last_stats, REWARD, name)


def test_three_workers_write_one_table_and_every_episodes_files(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    runner = ParallelRolloutRunner(n_processes=3, n_episodes=100, max_episode_steps=10)
    mean = runner.run_with(CARTPOLE, None, RANDOM_POLICY)
    output = capsys.readouterr().out
    assert (
        "rollout_stats  BaseEnvEvents         reward                episode_count         |             100.000"
        in output
    )
    assert reward_stat(runner, "episode_count") == 100 and reward_stat(runner, "max") <= 10
    assert mean == pytest.approx(reward_stat(runner, "mean"))
    lengths = trajectory_lengths(run_dir)
    assert len(lengths) == 100 and sum(lengths) == reward_stat(runner, "total_step_count")
    rows = reward_rows(run_dir)  # parses: one header, whole rows, although three processes append
    assert len(rows) == sum(lengths) and len({row.episode_id for row in rows}) == 100
    assert not list((run_dir / "trajectory_data").glob("*.tmp"))


def test_parallel_and_sequential_runs_with_the_same_seeds_give_the_same_table(run_dir: Path) -> None:
    tables = []
    for runner in (
        ParallelRolloutRunner(n_processes=2, n_episodes=12, max_episode_steps=0, record_trajectory=False),
        SequentialRolloutRunner(n_episodes=12, max_episode_steps=0, record_trajectory=False),
    ):
        runner.seeding = MazeSeeding(3, 4)
        runner.run_with(CARTPOLE, None, RANDOM_POLICY)
        tables.append(runner.last_stats)
    assert tables[0] == tables[1]


def test_two_calls_give_independent_tables(run_dir: Path) -> None:
    runner = ParallelRolloutRunner(n_processes=2, n_episodes=6, max_episode_steps=5, record_event_logs=False)
    runner.run_with(CARTPOLE, None, RANDOM_POLICY)
    runner.n_episodes = 4
    runner.run_with({"_target_": "rollout_support.make_frame_env", "length": 2}, None, RANDOM_POLICY)
    assert reward_stat(runner, "episode_count") == 4 and reward_stat(runner, "total_step_count") == 8
    assert reward_stat(runner, "total_episode_count") == 4
    assert len(trajectory_lengths(run_dir)) == 10


def test_env_instances_and_fewer_episodes_than_processes_work_with_spawn(run_dir: Path) -> None:
    runner = ParallelRolloutRunner(n_processes=4, n_episodes=2, max_episode_steps=0, start_method="spawn")
    assert runner.run_with(make_frame_env(length=4), {"RewardScalingWrapper": {"scale": 0.5}}, RANDOM_POLICY) == 2.0
    assert trajectory_lengths(run_dir) == [4, 4]


def test_a_failing_episode_raises_with_the_worker_traceback_and_keeps_the_other_files(run_dir: Path) -> None:
    runner = ParallelRolloutRunner(n_processes=3, n_episodes=30, max_episode_steps=20)
    runner.seeding = MazeSeeding(0, 0, explicit_env_seeds=list(range(100, 130)))
    with pytest.raises(RolloutWorkerError) as raised:
        runner.run_with({"_target_": "rollout_support.make_failing_cartpole", "fail_seed": 117}, None, RANDOM_POLICY)
    message = str(raised.value)
    assert "failed in episode 17 (env seed 117, agent seed " in message
    assert "RuntimeError: the test env exploded on purpose" in message
    assert "--- traceback of the worker ---\nTraceback (most recent call last):" in message
    assert 'in explode\n    raise RuntimeError("the test env exploded on purpose")' in message
    assert "seeding.explicit_env_seeds=[117]" in message
    finished = int(message.split(" of 30 episodes were reported")[0].rsplit(None, 1)[-1])
    assert f"; {finished} trajectory files were written to {run_dir / 'trajectory_data'}" in message
    lengths = trajectory_lengths(run_dir)  # every file loads: none was cut short
    assert len(lengths) == finished and 17 <= finished < 30
    assert len({row.episode_id for row in reward_rows(run_dir)}) == finished
    assert len(reward_rows(run_dir)) == sum(lengths)


def test_a_configuration_error_in_the_workers_is_one_clear_message(run_dir: Path) -> None:
    runner = ParallelRolloutRunner(n_processes=2, n_episodes=4)
    with pytest.raises(ConfigurationError) as raised:
        runner.run_with({**CARTPOLE, "name": "CartPoel-v1"}, None, RANDOM_POLICY)
    assert "CartPoel-v1" in str(raised.value) and "Traceback" not in str(raised.value)


def disk_full(self: object, record: object) -> None:
    """A writer on a full disk: the trajectory writer names its file, a failed append names none."""
    if isinstance(self, TrajectoryWriterFile):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.log_dir / "episode.pkl"))
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize(
    ("writer", "named_path"),
    [(TrajectoryWriterFile, "trajectory_data/episode.pkl"), (LogEventsWriterTSV, "event_logs")],
)
def test_a_full_disk_is_one_message_naming_the_path_and_the_cause_not_the_env(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch, writer: type, named_path: str
) -> None:
    monkeypatch.setattr(writer, "write", disk_full)  # the forked workers inherit the full disk
    runner = ParallelRolloutRunner(n_processes=2, n_episodes=4, max_episode_steps=5, start_method="fork")
    with pytest.raises(RolloutOutputError) as raised:
        runner.run_with(CARTPOLE, None, RANDOM_POLICY)
    message = str(raised.value)
    assert f"cannot write the {'trajectory file' if writer is TrajectoryWriterFile else 'event log'} " in message
    assert f"{str(run_dir / named_path)!r}: the disk is full (ENOSPC: No space left on device)" in message
    assert "The env and the policy are not at fault" in message and "of 4 episodes were reported" in message
    assert "\n" not in message and "Traceback" not in message and "Fix the env or policy" not in message


def test_a_killed_worker_is_reported_with_its_exit_code_and_the_files_written(run_dir: Path) -> None:
    runner = ParallelRolloutRunner(n_processes=2, n_episodes=6, max_episode_steps=20)
    runner.seeding = MazeSeeding(0, 0, explicit_env_seeds=[1, 2, 3, 4, 5, 6])
    with pytest.raises(RolloutWorkerError, match=r"rollout workers died .*worker \d \(exit code -9\)") as raised:
        runner.run_with({"_target_": "rollout_support.make_killing_cartpole", "fail_seed": 3}, None, RANDOM_POLICY)
    written = len(trajectory_lengths(run_dir))  # the episodes whose files exist, reported or not
    assert f"; {written} trajectory files were written to {run_dir / 'trajectory_data'}" in str(raised.value)
    reported = int(str(raised.value).split(" of 6 episodes were reported")[0].rsplit(None, 1)[-1])
    assert reported <= written < 6


def test_an_agent_that_cannot_be_pickled_is_a_configuration_error(run_dir: Path) -> None:
    runner = ParallelRolloutRunner(n_processes=2, n_episodes=2)
    with pytest.raises(ConfigurationError, match="cannot be sent to the rollout workers.*use runner=sequential"):
        runner.run_with(CARTPOLE, None, (value for value in ()))


def test_start_method_and_process_count_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="runner.start_method='threads' is not available"):
        ParallelRolloutRunner(start_method="threads")
    with pytest.raises(ConfigurationError, match="runner.n_processes must be an int of at least 1"):
        ParallelRolloutRunner(n_processes=0)


def test_reports_survive_pickling_and_merge_into_the_documented_rows() -> None:
    env = LogStatsWrapper.wrap(make_frame_env(length=3))
    env.reset(seed=0)
    for _ in range(3):
        env.step({"action": 0})
    report = EpisodeStatsReport(worker_index=1, episode_indices=[7], step_counts=[3], stats=env.take_episode_stats())
    failure = ExceptionReport(1, 7, "builtins.ValueError", "bad", "Traceback ...", configuration_error=False)
    copy = pickle.loads(pickle.dumps(report))
    assert pickle.loads(pickle.dumps(failure)) == failure
    aggregator = LogStatsAggregator()
    aggregator.add_episode_stats(copy.stats)
    stats = aggregator.reduce()
    names = {key.name for key in stats if key.topic == "BaseEnvEvents" and key.event == "reward"}
    assert names == {
        "median_step_count",
        "mean_step_count",
        "total_step_count",
        "total_episode_count",
        "episode_count",
        "std",
        "mean",
        "min",
        "max",
    }
    assert stats_value(stats, REWARD, "mean") == 3.0


class RecordingProgress(RolloutProgress):
    """Records the runner's calls in order (update() ends an open start-up itself, recorded after it)."""

    def __init__(self, n_episodes: int) -> None:
        super().__init__(n_episodes)
        self.calls: list[str] = []

    def begin_startup(self) -> None:
        self.calls.append("begin_startup")
        super().begin_startup()

    def end_startup(self) -> None:
        self.calls.append("end_startup")
        super().end_startup()

    def update(self, episodes: int, steps: int) -> None:
        self.calls.append("update")
        super().update(episodes, steps)


def test_rates_count_from_the_first_ready_worker_not_from_the_start(run_dir: Path) -> None:
    runner = ParallelRolloutRunner(n_processes=2, n_episodes=4, max_episode_steps=5, record_trajectory=False)
    job = RolloutJob(
        env=CARTPOLE,
        wrappers=None,
        agent=RANDOM_POLICY,
        max_episode_steps=5,
        deterministic=True,
        record_trajectory=False,
        record_event_logs=False,
        output_dir=run_dir,
    )
    progress = RecordingProgress(4)
    batch = runner.run_episodes(job, [1, 2, 3, 4], [5, 6, 7, 8], progress)
    assert len(batch.episodes) == 4 and progress.episodes == 4
    # the workers' start-up: from before the first process starts until the first WorkerReady arrives
    assert progress.calls[:2] == ["begin_startup", "end_startup"] and progress.calls.count("begin_startup") == 1
    assert progress.startup_seconds > 0.0 and "update" in progress.calls
