"""Reward scaling, clipping and return normalization."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from maze.env.errors import ConfigurationError
from maze.env.utils.running_stats import CumulativeMovingMeanStd
from maze.env.wrappers._shared import checked_real
from maze.env.wrappers.wrapper import EnvType, RewardWrapper

__all__ = ["RewardScalingWrapper", "RewardClippingWrapper", "ReturnNormalizationRewardWrapper"]


class RewardScalingWrapper(RewardWrapper[EnvType]):
    """Multiplies every step reward by ``scale`` (``scale=0.1`` turns CartPole's 1.0 into 0.1).

    Args:
        env: The env to wrap.
        scale: The factor.
    """

    def __init__(self, env: EnvType, scale: float) -> None:
        super().__init__(env)
        self.scale = checked_real("RewardScalingWrapper", "scale", scale)

    def reward(self, reward: Any) -> Any:
        """The scaled reward."""
        return reward * self.scale


class RewardClippingWrapper(RewardWrapper[EnvType]):
    """Clips every step reward to ``[min_val, max_val]``.

    Args:
        env: The env to wrap.
        min_val: Lower bound of the reward.
        max_val: Upper bound of the reward (at least ``min_val``).
    """

    def __init__(self, env: EnvType, min_val: float, max_val: float) -> None:
        super().__init__(env)
        self.min_val = checked_real("RewardClippingWrapper", "min_val", min_val)
        self.max_val = checked_real("RewardClippingWrapper", "max_val", max_val)
        if self.min_val > self.max_val:
            raise ConfigurationError(f"RewardClippingWrapper: min_val ({min_val}) must not exceed max_val ({max_val})")

    def reward(self, reward: Any) -> Any:
        """The clipped reward."""
        return np.clip(reward, self.min_val, self.max_val)


class ReturnNormalizationRewardWrapper(RewardWrapper[EnvType]):
    """Divides every step reward by the running standard deviation of the discounted return.

    The wrapper accumulates the discounted return ``R <- gamma * R + reward`` over the
    ``step()`` calls of an episode, keeps running statistics of ``R`` over all steps
    seen so far and returns ``reward / std(R)`` (the very first reward, before a standard
    deviation exists, passes unchanged). The return restarts at 0 after an
    episode ends (terminated or truncated) and on every reset; the statistics persist.
    Rewards are expected to be scalars.

    Args:
        env: The env to wrap.
        gamma: Discount factor of the return, in ``[0, 1]``.
        epsilon: Lower bound of the standard deviation (avoids division by zero).
    """

    def __init__(self, env: EnvType, gamma: float = 0.99, epsilon: float = 1e-8) -> None:
        super().__init__(env)
        gamma = checked_real("ReturnNormalizationRewardWrapper", "gamma", gamma)
        if not 0.0 <= gamma <= 1.0:
            raise ConfigurationError(f"ReturnNormalizationRewardWrapper: gamma must lie in [0, 1], got {gamma}")
        self.gamma = gamma
        self.return_stats = CumulativeMovingMeanStd(epsilon=epsilon)
        self._return = np.zeros(1)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Resets the inner env and the discounted return."""
        self._return[0] = 0.0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Steps the inner env, normalizes the reward and restarts the return at episode end."""
        observation, reward, terminated, truncated, info = super().step(action)
        if terminated or truncated:
            self._return[0] = 0.0
        return observation, reward, terminated, truncated, info

    def reward(self, reward: Any) -> Any:
        """Updates the return statistics and returns the normalized reward."""
        self._return *= self.gamma
        self._return += reward
        self.return_stats.update(self._return)
        if self.return_stats.count < 2:
            return reward
        return reward / self.return_stats.std
