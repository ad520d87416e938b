"""The Ray vector env: its env groups, steps as the sequential vector env's, and a dead actor is named.

Training with it (``algorithm=ppo runner=ray``) is tested by maze-rl's Ray tests (test_ray_ppo_vector_env.py).
"""

from __future__ import annotations

import functools
import os
import signal
from typing import Any

import numpy as np
import pytest
from maze.env.errors import EnvWorkerError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.vector.sequential import SequentialVectorEnv
from maze.rollout.ray_cluster import RayCluster
from maze.rollout.ray_vector_env import RayVectorEnv, env_groups

CARTPOLE = functools.partial(GymMazeEnv, "CartPole-v1")
"""An env factory the actors import by reference (a function of this test module would not be found there)."""


def test_env_groups_are_contiguous_and_balanced() -> None:
    assert env_groups(5, 2) == [range(0, 3), range(3, 5)]
    assert env_groups(4, 4) == [range(i, i + 1) for i in range(4)]


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
