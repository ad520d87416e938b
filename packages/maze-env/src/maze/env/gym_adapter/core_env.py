"""The CoreEnv and renderer behind GymMazeEnv."""

from __future__ import annotations

from typing import Any, Optional

import gymnasium as gym
from maze.env.core.core_env import CoreEnv
from maze.env.core.rendering import Renderer

__all__ = ["GymCoreEnv", "GymRenderer"]


class GymRenderer(Renderer):
    """Online rendering through the gymnasium env's own ``render()``.

    Gymnasium fixes the render mode when the env is made, so create the env with
    ``render_mode="human"`` (or ``"rgb_array"``) to see anything. Replaying recorded
    gym trajectories is not possible: the gym env cannot be set to a recorded state.
    """

    replayable = False

    def __init__(self, env: gym.Env) -> None:
        self.env = env

    def render(self, maze_state: Any, maze_action: Optional[Any], events: Any, **kwargs: Any) -> Any:
        """Renders the live gymnasium env (the arguments are ignored)."""
        return self.env.render()


class GymCoreEnv(CoreEnv):
    """A gymnasium env as a CoreEnv: MazeStates are its observations, MazeActions its actions.

    Args:
        env: The gymnasium env.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__()
        self.env = env
        self._renderer = GymRenderer(env)
        self._observation: Any = None

    def step(self, maze_action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Steps the gymnasium env."""
        observation, reward, terminated, truncated, info = self.env.step(maze_action)
        self._observation = observation
        return observation, reward, terminated, truncated, info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Resets the gymnasium env."""
        observation, info = self.env.reset(seed=seed, options=options)
        self._observation = observation
        return observation, info

    def get_maze_state(self) -> Any:
        """The last gymnasium observation."""
        return self._observation

    def get_renderer(self) -> GymRenderer:
        """Renders through the gymnasium env."""
        return self._renderer

    def close(self) -> None:
        """Closes the gymnasium env."""
        self.env.close()
