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


def test_the_ray_vector_env_steps_as_the_sequential_one_and_stops_when_an_actor_has_no_restart_left(
    ray_local: Any,
) -> None:
    ray_env = RayVectorEnv([CARTPOLE] * 3, RayCluster(max_restarts=0), num_actors=2)
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
        with pytest.raises(
            EnvWorkerError,
            match=r"Env actor 1 \(envs 2-2\) of the RayVectorEnv died 1 times, more than runner.max_restarts=0",
        ):
            ray_env.step({"action": np.zeros(3, dtype=np.int64)})
    finally:
        ray_env.close()
        reference.close()


def test_a_restarted_actor_cuts_its_envs_episodes_and_the_others_step_on_unchanged(ray_local: Any) -> None:
    ray_env = RayVectorEnv([CARTPOLE] * 3, RayCluster(max_restarts=1), num_actors=2)
    reference = SequentialVectorEnv([CARTPOLE] * 3)
    try:
        for env in (ray_env, reference):
            env.reset(seed=[1, 2, 3])
        actions = {"action": np.zeros(3, dtype=np.int64)}
        before = ray_env.step(actions)[0]["observation"][2].copy()
        reference.step(actions)
        os.kill(ray_local.get(ray_env.actors[1].pid.remote()), signal.SIGKILL)

        observations, rewards, terminated, truncated, infos = ray_env.step(actions)
        expected = reference.step(actions)
        np.testing.assert_array_equal(observations["observation"][:2], expected[0]["observation"][:2])
        np.testing.assert_array_equal(rewards[:2], expected[1][:2])
        assert (rewards[2], terminated[2], truncated[2]) == (0.0, False, True)  # env 2's episode was cut, not stepped
        assert infos[2]["final_info"] == {"env_actor_lost": True}
        np.testing.assert_array_equal(infos[2]["final_observation"]["observation"], before)
        assert ray_env.restarts.total == 1

        for _ in range(5):  # the restarted actor's env steps on in its new episode
            _, _, terminated, truncated, _ = ray_env.step(actions)
            assert not truncated[2]
        with pytest.raises(EnvWorkerError, match=r"died 2 times, more than runner.max_restarts=1"):
            os.kill(ray_local.get(ray_env.actors[1].pid.remote()), signal.SIGKILL)
            ray_env.step(actions)
    finally:
        ray_env.close()
        reference.close()
