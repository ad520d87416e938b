"""SequentialVectorEnv: steps its envs one after another in the calling process."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from maze.env.vector.vector_env import (
    EnvResetResult,
    EnvStepResult,
    StructuredVectorEnv,
    describe_env,
    reset_env,
    step_with_autoreset,
)

__all__ = ["SequentialVectorEnv"]


class SequentialVectorEnv(StructuredVectorEnv):
    """Builds its envs in-process and steps them in a loop.

    The fast default for cheap envs: on a few cores, inter-process communication costs more
    than stepping e.g. CartPole. Batching, auto-reset and seeding are described in
    :class:`~maze.env.vector.vector_env.StructuredVectorEnv`.

    Example:
        >>> from maze.env import GymMazeEnv
        >>> envs = SequentialVectorEnv([lambda: GymMazeEnv("CartPole-v1")] * 2)
        >>> envs.reset(seed=0)[0]["observation"].shape
        (2, 4)

    Args:
        env_factories: One callable per env, each returning a structured env (e.g. a
            :class:`~maze.env.core.maze_env.MazeEnv` or a wrapper stack around one).
        copy_observations: Return copies of the batch buffers (see the base class).
    """

    def __init__(self, env_factories: Sequence[Callable[[], Any]], copy_observations: bool = True) -> None:
        self.envs = [factory() for factory in env_factories]
        super().__init__([describe_env(env) for env in self.envs], copy_observations=copy_observations)

    def _reset_envs(self, seeds: list[Optional[int]], options: Optional[dict]) -> list[EnvResetResult]:
        return [reset_env(env, seed, options) for env, seed in zip(self.envs, seeds, strict=True)]

    def _step_envs(self, actions: list[dict[str, Any]]) -> list[EnvStepResult]:
        return [step_with_autoreset(env, action) for env, action in zip(self.envs, actions, strict=True)]

    def close(self) -> None:
        """Closes all envs."""
        for env in self.envs:
            env.close()
