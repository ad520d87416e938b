"""IMPALA with Ray actors (algorithm=impala runner=ray): it solves CartPole-v1 and survives a killed actor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from maze.env.log_stats.log_stats_env import stats_value
from maze.train.distributed.ray_actors import RayDistributedActors
from maze.train.distributed.subproc_actors import ActorFailedError
from maze.train.trainers.impala.events import ImpalaEvents
from ray_runs import CARTPOLE_TRAINING, StatsRecorder, kill_actor_in_the_learner, set_up_job

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
    """Makes the learner kill actor 0 once it has trained 2,000 env steps (see ``kill_actor_in_the_learner``)."""
    actors = trainer.actors
    return kill_actor_in_the_learner(
        ray, actors, "collect_outputs", lambda: actors.actors[0], lambda: trainer.env_steps >= 2000, wait_for_restart
    )


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
