"""Envs of the Ray tests (sent to the actors by value: the actors cannot import this module)."""

from __future__ import annotations

import time
from typing import Any

import gymnasium
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv


class _SlowSteps(gymnasium.Wrapper):
    """Sleeps before every step, so that a test can act while an episode runs."""

    def __init__(self, env: gymnasium.Env, step_seconds: float) -> None:
        super().__init__(env)
        self.step_seconds = step_seconds

    def step(self, action: Any) -> Any:
        time.sleep(self.step_seconds)
        return self.env.step(action)


def slow_cartpole(step_seconds: float = 0.01) -> GymMazeEnv:
    """CartPole-v1 whose steps take at least ``step_seconds``."""
    return GymMazeEnv(_SlowSteps(gymnasium.make("CartPole-v1"), step_seconds))
