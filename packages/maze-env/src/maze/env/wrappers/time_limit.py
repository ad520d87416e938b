"""Truncates episodes after a fixed number of env steps."""

from __future__ import annotations

from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.wrappers._shared import env_time_source
from maze.env.wrappers.wrapper import EnvType, Wrapper

__all__ = ["TimeLimitWrapper", "episode_step_limit"]


class TimeLimitWrapper(Wrapper[EnvType]):
    """Ends episodes with ``truncated=True`` once they reach ``max_episode_steps`` env steps.

    The counterpart of gymnasium's ``TimeLimit`` for structured envs. When the wrapped env
    has an env time (:class:`~maze.env.core.mixins.TimeEnvMixin`, e.g. every MazeEnv), the
    limit applies to that time, so a multi-step env is truncated after
    ``max_episode_steps`` env steps rather than sub-steps, and steps skipped by an inner
    :class:`~maze.env.wrappers.random_reset.RandomResetWrapper` count. Otherwise the
    wrapper counts ``step()`` calls since the last reset. An episode that terminates on
    its own keeps ``terminated=True`` and is not marked truncated.

    Args:
        env: The env to wrap.
        max_episode_steps: Env steps after which an episode is truncated (at least 1).
    """

    def __init__(self, env: EnvType, max_episode_steps: int) -> None:
        super().__init__(env)
        if isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int) or max_episode_steps < 1:
            raise ConfigurationError(
                f"TimeLimitWrapper: max_episode_steps must be a positive int, got {max_episode_steps!r}"
            )
        self.max_episode_steps = max_episode_steps
        self._env_time = env_time_source(env)
        self._step_calls = 0

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Resets the inner env and the step count."""
        self._step_calls = 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Steps the inner env; sets ``truncated`` when the step limit is reached."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._step_calls += 1
        if not terminated and self.elapsed_steps() >= self.max_episode_steps:
            truncated = True
        return observation, reward, terminated, truncated, info

    def elapsed_steps(self) -> int:
        """Env steps counted towards the limit in the current episode."""
        return self._env_time() if self._env_time is not None else self._step_calls


def episode_step_limit(env: Any) -> Optional[int]:
    """The step limit an env stack sets its episodes by itself, or None when it has none.

    The outermost :class:`TimeLimitWrapper` of the stack counts; without one, the step limit a
    gymnasium env was registered or made with (``spec.max_episode_steps``, e.g. 500 for
    CartPole-v1) when the innermost env wraps a gymnasium env (``GymMazeEnv``).

    Args:
        env: An env, possibly wrapped.
    """
    node = env
    while isinstance(node, Wrapper):
        if isinstance(node, TimeLimitWrapper):
            return node.max_episode_steps
        node = node.env
    gym_env = getattr(node, "gym_env", None)
    spec = getattr(gym_env, "spec", None)
    limit = getattr(spec, "max_episode_steps", None)
    return limit if isinstance(limit, int) and limit > 0 else None
