"""SAC with Ray workers (algorithm=sac runner=ray): it learns Pendulum's first stage and survives a killed worker.

Pendulum-v1 with ``+experiment=pendulum_sac`` (RL-Zoo's settings; in-process SAC reaches the
stage's -200 after 3,100 to 5,100 env steps, see ``nox -s bench -- --only sac``) with one Ray
worker whose policy copy is a broadcast or two stale: the test stops at -200 and allows 8,000
learning steps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from maze.env.log_stats.log_stats_env import stats_value
from maze.train.replay.ray_workers import RayDistributedWorkersWithBuffer
from maze.train.trainers.sac.events import SACEvents
from ray_runs import StatsRecorder, kill_actor_in_the_learner, set_up_job

SEEDS = ("seeding.env_base_seed=0", "seeding.agent_base_seed=0", "runner.progress=off")

SAC_PENDULUM_ON_RAY = (
    "env.name=Pendulum-v1",
    "algorithm=sac",
    "model=vector_obs",
    "critic=template_state_action",
    "+experiment=pendulum_sac",
    "runner=ray",
    "algorithm.mixed_precision=false",
    *SEEDS,
)
"""RL-Zoo's Pendulum SAC with one Ray worker, in float32.

The experiment's bfloat16 gradient steps pay off on CPUs with bfloat16 matrix instructions only;
elsewhere torch emulates them: on an AMD EPYC CI machine without AVX512 this test took 843 s.
"""

SAC_CARTPOLE_ON_RAY = (
    "env.name=CartPole-v1",
    "algorithm=sac",
    "model=vector_obs",
    "critic=template_state_action",
    "+experiment=cartpole_sac",
    "runner=ray",
    "algorithm.num_actors=2",
    "algorithm.initial_buffer_size=100",
    "algorithm.rollout_evaluator=null",
    *SEEDS,
)
"""CartPole SAC with two Ray workers after 100 random transitions, without evaluation (add the epochs)."""


def test_sac_with_ray_workers_learns_pendulums_first_stage(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = set_up_job("conf_train", (*SAC_PENDULUM_ON_RAY, "algorithm.n_epochs=8"), tmp_path / "run", monkeypatch)
    assert isinstance(runner.trainer.workers, RayDistributedWorkersWithBuffer)

    best = runner.run()

    assert best >= -200  # deterministic evaluation mean over 10 episodes


def test_a_killed_sac_worker_is_restarted_and_no_transition_is_lost_or_stored_twice(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overrides = (*SAC_CARTPOLE_ON_RAY, "algorithm.n_epochs=3", "algorithm.epoch_length=200")
    runner = set_up_job("conf_train", overrides, tmp_path / "run", monkeypatch)
    workers = runner.trainer.workers
    killed = kill_actor_in_the_learner(
        ray_local, workers, "collect_rollouts", lambda: workers.actors.actors[0], lambda: workers.env_steps >= 400, True
    )
    with StatsRecorder("train") as recorder:
        runner.run()

    assert len(killed) == 1 and runner.trainer.epochs_done == 3
    # 100 random transitions, then one rollout of each of 2 workers per iteration: none lost, none twice
    assert workers.env_steps == 100 + 3 * 200 * 2
    assert workers.stored_transitions() == workers.env_steps
    restarts = [stats_value(table, SACEvents.actor_restarts) for table in recorder.tables]
    assert sum(restarts) == 1, f"worker restarts per epoch: {restarts}"
