"""Envs that go bad after a few steps, for the training-guard tests (importable via PYTHONPATH)."""

from __future__ import annotations

from typing import Any, Optional

import gymnasium as gym
import numpy as np
from maze.env import GymMazeEnv


class _Poisoned(gym.Wrapper):
    """Returns NaN rewards or NaN observations once it has started ``after_resets`` episodes.

    Counting episodes (not steps) keeps evaluation envs, which start one episode per
    evaluation, clean for the first evaluations while training envs turn bad.
    """

    def __init__(self, env: gym.Env, after_resets: int, what: str) -> None:
        super().__init__(env)
        self.after_resets, self.what, self.resets = after_resets, what, 0

    def reset(self, **kwargs: Any) -> tuple:
        self.resets += 1
        return self.env.reset(**kwargs)

    def step(self, action: Any) -> tuple:
        observation, reward, terminated, truncated, info = self.env.step(action)
        if self.resets > self.after_resets:
            if self.what == "reward":
                reward = float("nan")
            else:
                observation = np.array(observation, dtype=np.float32)
                observation[1] = np.nan
        return observation, reward, terminated, truncated, info


def poisoned_cartpole(name: str, what: str, after_resets: int, render_mode: Optional[str] = None) -> GymMazeEnv:
    """CartPole-v1 whose ``what`` (``reward`` or ``observation``) turns NaN after ``after_resets`` episodes."""
    return GymMazeEnv(_Poisoned(gym.make(name, render_mode=render_mode), after_resets, what))
