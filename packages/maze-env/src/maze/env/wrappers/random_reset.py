"""Starts episodes at a random point by taking random actions after each reset."""

from __future__ import annotations

import copy
from typing import Any, Optional

import numpy as np
from maze.env.errors import ConfigurationError, MazeError
from maze.env.utils.spaces import seed_spaces
from maze.env.wrappers._shared import checked_int, env_time_source, inner_spaces_dict
from maze.env.wrappers.wrapper import EnvType, Wrapper

__all__ = ["RandomResetWrapper"]

_OWNER = "RandomResetWrapper"


class RandomResetWrapper(Wrapper[EnvType]):
    """Skips the first ``k`` steps of every episode with random actions, ``k`` drawn from ``[min, max]``.

    Diversifies start states. ``k`` counts env steps: with an env time
    (:class:`~maze.env.core.mixins.TimeEnvMixin`) the wrapper steps until the env time has
    advanced by ``k`` (so a multi-step env takes all sub-steps of each skipped env step),
    otherwise it makes ``k`` ``step()`` calls. Random actions come from copies of the
    wrapped env's action spaces, sampled with the wrapper's own generator; a reset with a
    ``seed`` re-seeds that generator from the seed, so seeded resets are reproducible.

    If the episode ends while skipping, the env is reset again (without seed) and a new
    ``k`` is drawn, at most ``max_reset_attempts`` times.

    Args:
        env: The env to wrap.
        min_skip_steps: Fewest steps to skip (at least 0).
        max_skip_steps: Most steps to skip (at least ``min_skip_steps``).
        max_reset_attempts: Resets tried before giving up when every attempt ends the episode.
    """

    def __init__(self, env: EnvType, min_skip_steps: int, max_skip_steps: int, max_reset_attempts: int = 10) -> None:
        super().__init__(env)
        self.min_skip_steps = checked_int(_OWNER, "min_skip_steps", min_skip_steps, 0)
        self.max_skip_steps = checked_int(_OWNER, "max_skip_steps", max_skip_steps, 0)
        self.max_reset_attempts = checked_int(_OWNER, "max_reset_attempts", max_reset_attempts, 1)
        if self.min_skip_steps > self.max_skip_steps:
            raise ConfigurationError(
                f"{_OWNER}: need min_skip_steps <= max_skip_steps, got min_skip_steps={min_skip_steps!r}, "
                f"max_skip_steps={max_skip_steps!r}"
            )
        self._env_time = env_time_source(env)
        # Copies, so that seeding them leaves the wrapped env's spaces alone.
        self._action_spaces = copy.deepcopy(inner_spaces_dict(env, "action"))
        self._only_key = next(iter(self._action_spaces)) if len(self._action_spaces) == 1 else None
        self._rng = np.random.default_rng()
        self._seed_action_spaces()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Resets the inner env and skips a random number of steps.

        Raises:
            MazeError: Every one of ``max_reset_attempts`` episodes ended while skipping.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._seed_action_spaces()
        observation, info = self.env.reset(seed=seed, options=options)
        for _ in range(self.max_reset_attempts):
            skip_steps = int(self._rng.integers(self.min_skip_steps, self.max_skip_steps + 1))
            observation, ended = self._skip(observation, skip_steps)
            if not ended:
                return observation, info
            observation, info = self.env.reset(options=options)
        raise MazeError(
            f"{_OWNER}: the episode ended while skipping steps in all {self.max_reset_attempts} reset "
            f"attempts (skipping {self.min_skip_steps}..{self.max_skip_steps} steps). Lower max_skip_steps below "
            "the typical episode length."
        )

    def _skip(self, observation: Any, skip_steps: int) -> tuple[Any, bool]:
        """Takes random actions for ``skip_steps`` env steps.

        Returns:
            The last observation and whether the episode ended while skipping.
        """
        start = self._env_time() if self._env_time is not None else 0
        calls = 0
        while (self._env_time() - start if self._env_time is not None else calls) < skip_steps:
            observation, _, terminated, truncated, _ = self.env.step(self._random_action())
            calls += 1
            if terminated or truncated:
                return observation, True
        return observation, False

    def _random_action(self) -> Any:
        key = self._only_key if self._only_key is not None else self.env.actor_id()[0]
        return self._action_spaces[key].sample()

    def _seed_action_spaces(self) -> None:
        seed_spaces(self._action_spaces.values(), int(self._rng.integers(2**31)))
