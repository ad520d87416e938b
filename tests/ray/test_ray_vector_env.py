"""A2C/PPO with a Ray vector env (algorithm=ppo runner=ray): PPO learns CartPole; env errors and dead actors are named.

PPO with ``+experiment=cartpole_ppo_fast`` (32 envs, here in the 2 actors of the session's
2-CPU Ray, 16 each; 4,096 env steps per epoch) stops at the documented 475 (deterministic
evaluation mean over 20 episodes); the test allows 40 epochs.
"""

from __future__ import annotations

import functools
import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from maze.env.errors import EnvWorkerError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.vector.sequential import SequentialVectorEnv
from maze.rollout.ray_cluster import RayCluster
from maze.rollout.ray_vector_env import RayVectorEnv, env_groups
from ray_runs import CARTPOLE_TRAINING, set_up_job

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

CARTPOLE = functools.partial(GymMazeEnv, "CartPole-v1")
"""An env factory the actors import by reference (a function of this test module would not be found there)."""


def test_env_groups_are_contiguous_and_balanced() -> None:
    assert env_groups(5, 2) == [range(0, 3), range(3, 5)]
    assert env_groups(4, 4) == [range(i, i + 1) for i in range(4)]


def test_ppo_with_a_ray_vector_env_solves_cartpole(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    budget = ("algorithm.target_reward=475", "algorithm.n_epochs=40", "algorithm.patience=0")
    runner = set_up_job("conf_train", (*PPO_ON_RAY, *budget), tmp_path / "run", monkeypatch)
    train_env = runner.trainer.collector.env
    assert isinstance(train_env, RayVectorEnv) and train_env.num_actors == 2

    best = runner.run()

    assert best >= 475  # deterministic evaluation mean over 20 episodes


def test_the_ray_vector_env_steps_as_the_sequential_one_and_names_a_dead_actor(ray_local: Any) -> None:
    ray_env = RayVectorEnv([CARTPOLE] * 3, RayCluster(), num_actors=2)
    reference = SequentialVectorEnv([CARTPOLE] * 3)
    try:
        observations = [env.reset(seed=[1, 2, 3])[0]["observation"] for env in (ray_env, reference)]
        np.testing.assert_array_equal(*observations)
        for _ in range(30):  # through episode ends (auto-reset)
            actions = {"action": np.ones(3, dtype=np.int64)}
            (ray_obs, ray_rewards, *_), (obs, rewards, *_) = ray_env.step(actions), reference.step(actions)
            np.testing.assert_array_equal(ray_obs["observation"], obs["observation"])
            np.testing.assert_array_equal(ray_rewards, rewards)

        os.kill(ray_local.get(ray_env.actors[1].pid.remote()), signal.SIGKILL)
        with pytest.raises(EnvWorkerError, match=r"Env actor 1 \(envs 2-2\) of the RayVectorEnv died during step"):
            ray_env.step({"action": np.zeros(3, dtype=np.int64)})
    finally:
        ray_env.close()
        reference.close()
