"""SequentialVectorEnv: steps its envs one after another in the calling process."""

from __future__ import annotations

from itertools import repeat
from typing import Any, Callable, Iterable, Optional, Sequence, TypeVar

from maze.env.vector.env_ops import (
    EnvResetResult,
    EnvStepResult,
    call_env,
    describe_env,
    env_error,
    env_error_kind,
    reset_env,
    step_with_autoreset,
)
from maze.env.vector.vector_env import StructuredVectorEnv

__all__ = ["SequentialVectorEnv"]

T = TypeVar("T")


def _build(factory: Callable[[], Any]) -> Any:
    return factory()


class SequentialVectorEnv(StructuredVectorEnv):
    """Builds its envs in-process and steps them in a loop.

    The fast default for cheap envs: on a few cores, inter-process communication costs more
    than stepping e.g. CartPole. Batching, auto-reset, seeding and errors are described in
    :class:`~maze.env.vector.vector_env.StructuredVectorEnv`; an error inside an env is
    re-raised naming the env index, chained to the original error.

    Examples:
        >>> from maze.env import GymMazeEnv
        >>> envs = SequentialVectorEnv([lambda: GymMazeEnv("CartPole-v1")] * 2)
        >>> envs.reset(seed=0)[0]["observation"].shape
        (2, 4)

    Args:
        env_factories: One callable per env, each returning a structured env (e.g. a
            :class:`~maze.env.core.maze_env.MazeEnv` or a wrapper stack around one).
        copy_observations: Return new arrays on every step (see the base class).
    """

    def __init__(self, env_factories: Sequence[Callable[[], Any]], copy_observations: bool = True) -> None:
        self.envs = self._run_each("init", _build, env_factories)
        descriptions = self._run_each("init", describe_env, self.envs)
        super().__init__(descriptions, copy_observations=copy_observations)

    def _reset_envs(self, seeds: list[Optional[int]], options: Optional[dict]) -> list[EnvResetResult]:
        return self._run_each("reset", reset_env, self.envs, seeds, repeat(options))

    def _step_envs(self, actions: list[dict[str, Any]]) -> list[EnvStepResult]:
        return self._run_each("step", step_with_autoreset, self.envs, actions)

    def _call_envs(self, method_name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        return self._run_each("call", call_env, self.envs, repeat(method_name), repeat(args), repeat(kwargs))

    def close(self) -> None:
        """Closes all envs."""
        for env in self.envs:
            env.close()

    @staticmethod
    def _run_each(command: str, function: Callable[..., T], *per_env: Iterable[Any]) -> list[T]:
        """``function(*arguments of env i)`` for every env ``i``; errors name the env index.

        Args:
            command: What the envs are asked to do, for error messages.
            function: Called once per env.
            per_env: Argument iterables; the first one has one entry per env.

        Raises:
            MazeError: From :func:`~maze.env.vector.env_ops.env_error`, chained to the env's error.
        """
        results: list[T] = []
        try:
            for arguments in zip(*per_env, strict=False):  # the other iterables may be endless repeats
                results.append(function(*arguments))
        except Exception as error:
            raise env_error(
                env_error_kind(error), "SequentialVectorEnv", len(results), command, f"{type(error).__name__}: {error}"
            ) from error
        return results
