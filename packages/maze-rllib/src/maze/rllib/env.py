"""MazeRLlibEnv: a Maze env (built from the ``env`` and ``wrappers`` configs) as an RLlib single-agent env."""

from __future__ import annotations

from typing import Any, Callable, Optional

import gymnasium as gym
from maze.env.errors import ConfigurationError

__all__ = ["FACTORY_KEY", "PLAIN_ACTION_KEY", "MazeRLlibEnv", "single_action_head"]

FACTORY_KEY = "maze_env_factory"
"""``env_config`` key of the picklable Maze env factory (the runner's, with observation normalization)."""

PLAIN_ACTION_KEY = "maze_plain_action"
"""``env_config`` key: True passes a single action head as its plain space (RLlib's default modules)."""


class MazeRLlibEnv(gym.Env):
    """A Maze env of one sub-step as a gymnasium env with dict spaces, for RLlib's env runners.

    RLlib builds it from its ``env_config`` (``{FACTORY_KEY: factory}``); the factory makes
    the Maze env with its wrappers, its normalization statistics and a LogStatsWrapper. The
    spaces are the sub-step's dict spaces, so the observations reach :class:`MazeRLModule`
    as dicts and its dict actions reach the env as they are. With ``{PLAIN_ACTION_KEY: True}``
    an env with a single action head takes that head's action in its plain space.

    Args:
        env_config: RLlib's env config holding the factory under :data:`FACTORY_KEY`.

    Raises:
        ConfigurationError: If the env has several sub-steps (structured envs need a multi-agent mapping).
    """

    def __init__(self, env_config: dict[str, Any]) -> None:
        factory: Callable[[], Any] = env_config[FACTORY_KEY]
        self.env = factory()
        keys = list(self.env.action_spaces_dict)
        if len(keys) != 1:
            self.env.close()
            raise ConfigurationError(
                f"the env has the sub-steps {keys}; MazeRLlibEnv takes envs with a single sub-step (structured envs "
                "run as maze.rllib.multi_agent_env.MazeMultiAgentEnv)"
            )
        self.step_key = keys[0]
        self.observation_space = self.env.observation_spaces_dict[self.step_key]
        self.action_space = self.env.action_spaces_dict[self.step_key]
        self.action_head = single_action_head(self.action_space) if env_config.get(PLAIN_ACTION_KEY) else None
        if self.action_head is not None:
            self.action_space = self.action_space[self.action_head]

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict[str, Any], dict]:
        """Resets the Maze env; its episode statistics are dropped (RLlib keeps its own)."""
        if hasattr(self.env, "clear_epoch_stats"):
            self.env.clear_epoch_stats()
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict]:
        """Steps the Maze env with a dict action (or the plain action of its single head)."""
        if self.action_head is not None:
            action = {self.action_head: action}
        observation, reward, terminated, truncated, info = self.env.step(action)
        return observation, float(reward), bool(terminated), bool(truncated), info

    def close(self) -> None:
        """Closes the Maze env."""
        self.env.close()


def single_action_head(action_space: gym.spaces.Dict) -> Optional[str]:
    """The name of the only head of a dict action space; None for several heads."""
    return next(iter(action_space.spaces)) if len(action_space.spaces) == 1 else None
