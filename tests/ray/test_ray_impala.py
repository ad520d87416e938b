"""IMPALA with Ray actors (algorithm=impala runner=ray): it solves CartPole-v1 and survives a killed actor."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from maze.env.log_stats.log_stats_env import stats_value
from maze.train.distributed.ray_actors import RayDistributedActors
from maze.train.distributed.subproc_actors import ActorFailedError
from maze.train.trainers.impala.events import ImpalaEvents
from ray_runs import CARTPOLE_TRAINING, StatsRecorder, set_up_job

IMPALA_ON_RAY = (
    *CARTPOLE_TRAINING,
    "algorithm=impala",
    "critic=template_state",
    "runner=ray",
    "algorithm.num_actors=2",
    "+experiment=cartpole_impala_fast",
    "seeding.env_base_seed=0",
    "seeding.agent_base_seed=0",
)
"""The tuned CartPole IMPALA (2 actors of 4 envs, 50-step rollouts, one rollout per update) on Ray."""

SHORT = ("algorithm.n_epochs=3", "algorithm.epoch_length=10", "algorithm.rollout_evaluator.n_episodes=2")
"""Three epochs of ten updates, a two-episode evaluation."""


def test_impala_on_ray_solves_cartpole(ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    budget = ("algorithm.target_reward=475", "algorithm.n_epochs=60", "algorithm.patience=0")
    runner = set_up_job("conf_train", (*IMPALA_ON_RAY, *budget), tmp_path / "run", monkeypatch)
    assert isinstance(runner.trainer.actors, RayDistributedActors)

    best = runner.run()

    assert best >= 475  # deterministic evaluation mean over 20 episodes


def _kill_actor_0_in_the_learner(trainer: Any, ray: Any, wait_for_restart: bool) -> list[int]:
    """Makes the learner SIGKILL actor 0's process once it has trained 2,000 env steps; returns the pids killed.

    The kill happens inside the learner's ``collect_outputs`` (between two updates, with a rollout
    of actor 0 in flight), so where it falls does not depend on the machine's speed. With
    ``wait_for_restart`` the learner then waits until Ray has restarted the actor, so the run cannot
    end before the death is seen and the new instance has delivered.
    """
    actors = trainer.actors
    collect = actors.collect_outputs
    killed: list[int] = []

    def collect_and_kill_once() -> Any:
        if not killed and trainer.env_steps >= 2000:
            pid = ray.get(actors.actors[0].pid.remote())
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            if wait_for_restart:
                _wait_for_a_new_process(ray, actors.actors[0], pid)
        return collect()

    actors.collect_outputs = collect_and_kill_once
    return killed


def _wait_for_a_new_process(ray: Any, actor: Any, old_pid: int, timeout_s: float = 120) -> None:
    """Blocks until ``actor`` answers from a process other than ``old_pid`` (Ray restarted it)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if ray.get(actor.pid.remote(), timeout=timeout_s) != old_pid:
                return
        except ray.exceptions.RayActorError:  # sent before Ray saw the death, or while it restarts
            time.sleep(0.2)
    raise AssertionError(f"Ray did not restart the killed actor within {timeout_s} s")


def test_a_killed_impala_actor_is_restarted_and_no_rollout_is_lost_or_counted_twice(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overrides = (*IMPALA_ON_RAY, *SHORT, "algorithm.n_epochs=5", "algorithm.epoch_length=20")
    runner = set_up_job("conf_train", overrides, tmp_path / "run", monkeypatch)
    killed = _kill_actor_0_in_the_learner(runner.trainer, ray_local, wait_for_restart=True)
    with StatsRecorder("train") as recorder:
        runner.run()

    config = runner.trainer.config
    assert len(killed) == 1 and runner.trainer.epochs_done == 5
    # every update took exactly one actor rollout of 4 envs x 50 steps: none lost, none twice
    assert runner.trainer.env_steps == 5 * config.epoch_length * config.actors_batch_size * 50 * 4
    restarts = [stats_value(table, ImpalaEvents.actor_restarts) for table in recorder.tables]
    assert sum(restarts) == 1, f"actor restarts per epoch: {restarts}"


def test_impala_stops_with_one_clear_error_when_max_restarts_is_exhausted(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overrides = (*IMPALA_ON_RAY, *SHORT, "algorithm.n_epochs=1000", "runner.max_restarts=0")
    runner = set_up_job("conf_train", overrides, tmp_path / "run", monkeypatch)
    killed = _kill_actor_0_in_the_learner(runner.trainer, ray_local, wait_for_restart=False)
    with pytest.raises(ActorFailedError, match=r"Actor 0 died 1 times, more than runner.max_restarts=0"):
        runner.run()
    assert len(killed) == 1
