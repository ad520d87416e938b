"""AutoRolloutRunner: in this process for small jobs, the rest to workers once that is faster (injected clock)."""

from __future__ import annotations

import math
import os
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

import pytest
from maze.env import BaseEnvEvents, GymMazeEnv, MazeSeeding, RandomPolicy
from maze.env.log_stats.log_stats_env import stats_value
from maze.rollout import (
    AutoRolloutRunner,
    ParallelRolloutRunner,
    RolloutProgress,
    SequentialRolloutRunner,
    auto_rollout_runner,
    rollout_runner,
)
from maze.rollout.auto_rollout_runner import (
    TORCH_IMPORT_S,
    WORKER_STARTUP_S,
    pays_to_parallelize,
    usable_cores,
    worker_startup_seconds,
)
from rollout_support import CARTPOLE, trajectory_lengths


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


CLOCK = FakeClock()


class SlowPolicy(RandomPolicy):
    """A random policy each of whose actions takes :attr:`seconds` on :data:`CLOCK` (in this process)."""

    seconds = 0.0

    def compute_action(self, observation: Any, *args: Any, actor_id: Optional[Any] = None, **kwargs: Any) -> Any:
        CLOCK.now += self.seconds
        return super().compute_action(observation, *args, actor_id=actor_id, **kwargs)


@pytest.fixture
def clocked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rollout time runs on CLOCK; the machine has two cores."""
    monkeypatch.setattr(rollout_runner, "RolloutProgress", lambda n: RolloutProgress(n, clock=CLOCK))
    monkeypatch.setattr(auto_rollout_runner, "usable_cores", lambda: 2)


@pytest.fixture
def no_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("worker processes were started")

    monkeypatch.setattr(ParallelRolloutRunner, "_run_in_workers", refuse)


def test_parallel_pays_once_the_remaining_time_exceeds_the_start_up_by_the_workers_share() -> None:
    assert not pays_to_parallelize(2.0, 2, 1.1)  # 1.1 + 1.0 > 2.0
    assert pays_to_parallelize(2.4, 2, 1.1)  # 1.1 + 1.2 < 2.4
    assert pays_to_parallelize(1.6, 4, 1.1)  # 1.1 + 0.4 < 1.6
    assert not pays_to_parallelize(1000.0, 1, 1.1)  # one worker never beats this process


def test_workers_of_a_process_with_torch_start_up_slower(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert worker_startup_seconds(0.5) == pytest.approx(WORKER_STARTUP_S + 0.5)
    monkeypatch.setitem(sys.modules, "torch", ModuleType("torch"))
    assert worker_startup_seconds(0.5) == pytest.approx(WORKER_STARTUP_S + 0.5 + TORCH_IMPORT_S)


@pytest.mark.usefixtures("clocked")
def test_slow_episodes_go_to_workers_after_the_first_with_the_same_table(
    run_dir: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SlowPolicy, "seconds", 0.3)  # 10 steps: about 3 s per episode, 15 s left after the first
    settings = {"n_episodes": 6, "max_episode_steps": 10, "record_event_logs": False}
    runner = AutoRolloutRunner(n_processes=4, **settings)
    runner.seeding = MazeSeeding(5, 6)
    runner.run_with(CARTPOLE, None, SlowPolicy)
    assert "rollout: the remaining 5 episodes go to 2 worker processes" in capsys.readouterr().out
    assert len(trajectory_lengths(run_dir)) == 6
    reference = SequentialRolloutRunner(**settings, record_trajectory=False)
    reference.seeding = MazeSeeding(5, 6)
    reference.run_with(CARTPOLE, None, SlowPolicy)
    for name in ("episode_count", "total_step_count", "mean", "min", "max"):
        assert stats_value(runner.last_stats, BaseEnvEvents.reward, name) == stats_value(
            reference.last_stats, BaseEnvEvents.reward, name
        )


@pytest.mark.usefixtures("clocked", "no_workers")
def test_fast_episodes_stay_in_this_process(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SlowPolicy, "seconds", 0.001)  # 20 episodes of at most 10 steps: 0.2 s in all
    runner = AutoRolloutRunner(n_episodes=20, max_episode_steps=10)
    runner.run_with(CARTPOLE, None, SlowPolicy)
    assert stats_value(runner.last_stats, BaseEnvEvents.reward, "episode_count") == 20


@pytest.mark.usefixtures("clocked", "no_workers")
def test_one_core_or_an_unpicklable_job_keeps_slow_episodes_in_this_process(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SlowPolicy, "seconds", 1.0)
    runner = AutoRolloutRunner(n_episodes=3, max_episode_steps=10, record_trajectory=False)
    monkeypatch.setattr(auto_rollout_runner, "usable_cores", lambda: 1)
    runner.run_with(CARTPOLE, None, SlowPolicy)
    monkeypatch.setattr(auto_rollout_runner, "usable_cores", lambda: 2)
    env = GymMazeEnv("CartPole-v1")
    env.lock = threading.Lock()  # cannot be pickled for workers
    runner.run_with(env, None, SlowPolicy)
    assert stats_value(runner.last_stats, BaseEnvEvents.reward, "episode_count") == 3


@pytest.mark.parametrize(("load", "free"), [(0.3, 2), (1.4, 2), (2.6, 1), (9.0, 1)])
def test_cores_busy_with_other_processes_are_not_counted(
    monkeypatch: pytest.MonkeyPatch, load: float, free: int
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(auto_rollout_runner.time, "process_time", lambda: 600.0)  # busy for minutes: its share is 1
    assert usable_cores() == free  # the load less this process's own share


@pytest.mark.parametrize(("cpu_seconds", "others", "free"), [(5.0, 1.0, 1), (5.0, 0.0, 2), (600.0, 0.0, 2)])
def test_a_young_process_counts_only_its_share_of_the_one_minute_load(
    monkeypatch: pytest.MonkeyPatch, cpu_seconds: float, others: float, free: int
) -> None:
    """The load is the others' plus this process's share: about 1 - exp(-t/60) after t busy seconds."""
    own = 1.0 - math.exp(-cpu_seconds / 60.0)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (others + own,) * 3)
    monkeypatch.setattr(auto_rollout_runner.time, "process_time", lambda: cpu_seconds)
    assert usable_cores() == free  # 5 s old beside one busy process (load 1.08): that process's core is not free


@pytest.mark.usefixtures("clocked", "no_workers")
def test_the_pickling_probe_counts_as_start_up_not_as_episode_time(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = AutoRolloutRunner._worker_payload

    def slow_probe(self: AutoRolloutRunner, job: Any) -> Optional[bytes]:
        CLOCK.now += 10.0  # a large env instance: pickling it takes 10 s
        return probe(self, job)

    monkeypatch.setattr(AutoRolloutRunner, "_worker_payload", slow_probe)
    monkeypatch.setattr(SlowPolicy, "seconds", 0.001)  # the episodes themselves are fast
    runner = AutoRolloutRunner(n_episodes=20, max_episode_steps=10, record_trajectory=False)
    runner.run_with(CARTPOLE, None, SlowPolicy)
    assert stats_value(runner.last_stats, BaseEnvEvents.reward, "episode_count") == 20
