"""The Ray benchmark's expensive env: CartPole-v1 that burns about 2 ms of CPU per step (sent to Ray actors by value)."""

from __future__ import annotations

import time
from typing import Any

import gymnasium as gym
from gymnasium.envs.classic_control import CartPoleEnv
from maze.env import GymMazeEnv

STEP_SECONDS = 0.002
"""CPU time each step burns (a simulator's cost)."""

EPISODE_STEPS = 200
"""Episode length: the pole is set up again when it falls, so only this limit ends an episode."""


class BurningCartPole(gym.Wrapper):
    """CartPole whose every step first spins the CPU for ``step_seconds`` and that resets itself when the pole falls."""

    def __init__(self, env: gym.Env, step_seconds: float) -> None:
        super().__init__(env)
        self.step_seconds = step_seconds

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        end = time.perf_counter() + self.step_seconds
        while time.perf_counter() < end:
            pass
        observation, reward, terminated, truncated, info = self.env.step(action)
        if terminated:
            observation, _ = self.env.reset()
        return observation, reward, False, truncated, info


def slow_cartpole(name: str = "CartPole-v1", step_seconds: float = STEP_SECONDS, **_: Any) -> GymMazeEnv:
    """The expensive env as a MazeEnv (``name`` and the other keys of ``env=gym_env`` are ignored)."""
    return GymMazeEnv(gym.wrappers.TimeLimit(BurningCartPole(CartPoleEnv(), step_seconds), EPISODE_STEPS))
