"""PPO with a Ray vector env (algorithm=ppo runner=ray) learns CartPole, and a killed env actor loses no env step.

PPO with ``+experiment=cartpole_ppo_fast`` (32 envs, here in the 2 actors of the session's
2-CPU Ray, 16 each; 4,096 env steps per epoch) stops at the documented 475 (deterministic
evaluation mean over 20 episodes); the test allows 40 epochs. The vector env itself is tested
by maze-rollout's Ray tests (test_ray_vector_env.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from maze.rollout.ray_vector_env import RayVectorEnv
from ray_runs import CARTPOLE_TRAINING, kill_actor_in_the_learner, set_up_job

PPO_ON_RAY = (
    *CARTPOLE_TRAINING,
    "algorithm=ppo",
    "critic=template_state",
    "+experiment=cartpole_ppo_fast",
    "runner=ray",
    "seeding.env_base_seed=0",
    "seeding.agent_base_seed=0",
)
"""The tuned CartPole PPO with its 32 training envs in Ray actors."""


def test_ppo_with_a_ray_vector_env_solves_cartpole(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    budget = ("algorithm.target_reward=475", "algorithm.n_epochs=40", "algorithm.patience=0")
    runner = set_up_job("conf_train", (*PPO_ON_RAY, *budget), tmp_path / "run", monkeypatch)
    train_env = runner.trainer.collector.env
    assert isinstance(train_env, RayVectorEnv) and train_env.num_actors == 2

    best = runner.run()

    assert best >= 475  # deterministic evaluation mean over 20 episodes


def test_a_killed_env_actor_is_restarted_and_ppo_completes_with_every_env_step(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    budget = (
        "algorithm.n_epochs=2",
        "algorithm.epoch_length=2",
        "algorithm.n_rollout_steps=16",
        "algorithm.patience=0",
        "algorithm.rollout_evaluator.n_episodes=1",
        "runner.concurrency=4",
    )
    job = (*CARTPOLE_TRAINING, "algorithm=ppo", "critic=template_state", "runner=ray", *budget)
    runner = set_up_job("conf_train", job, tmp_path / "run", monkeypatch)
    train_env = runner.trainer.collector.env
    assert isinstance(train_env, RayVectorEnv) and train_env.num_actors == 2
    steps = [0]

    def count_steps() -> bool:
        steps[0] += 1
        return steps[0] == 20  # the kill falls in the second update of the first epoch

    killed = kill_actor_in_the_learner(ray_local, train_env, "step", lambda: train_env.actors[0], count_steps, False)

    runner.run()

    assert len(killed) == 1 and train_env.restarts.total == 1
    assert runner.trainer.env_steps == 2 * 2 * 16 * 4  # epochs x updates x rollout steps x envs: none lost or doubled
