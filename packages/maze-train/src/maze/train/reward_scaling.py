"""Return-based reward scaling: rewards divided by the running standard deviation of the discounted return.

Critics of envs whose returns are in the hundreds (LunarLander) regress targets of that size;
their value loss then dwarfs the policy loss, above all in layers the policy shares with the
critic. Dividing every reward by the standard deviation of the discounted return seen so far
(what stable-baselines3's ``VecNormalize(norm_reward=True)`` does) keeps value targets near
unit scale whatever the env's reward scale. The trainer scales the rewards of its rollouts only:
the env, its statistics and the evaluation keep the env's own rewards.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from maze.env.utils.running_stats import CumulativeMovingMeanStd

__all__ = ["ReturnScaler"]


class ReturnScaler:
    """Scales the rewards of consecutive rollouts of the same ``N`` envs by ``1 / std(discounted return)``.

    Per env, the discounted return ``R <- discount * R + reward`` runs on across rollouts and
    restarts at 0 after every episode end; the standard deviation is that of all returns seen
    so far (rollout by rollout, the current rollout's included).

    Args:
        epsilon: Lower bound of the standard deviation.
    """

    def __init__(self, epsilon: float = 1e-8) -> None:
        self.return_stats = CumulativeMovingMeanStd(epsilon=epsilon)
        self._returns: Optional[np.ndarray] = None

    def __call__(self, rewards: np.ndarray, ends: np.ndarray, discount: np.ndarray) -> np.ndarray:
        """The scaled rewards of one rollout.

        Args:
            rewards: ``[T, N]`` rewards.
            ends: ``[T, N]`` bool, an episode ended (terminated or truncated) with the step.
            discount: ``[T]`` discount of every step (gamma, or 1 between the sub-steps of one env step).

        Returns:
            ``[T, N]`` float32 ``rewards / std``.
        """
        returns = np.empty(rewards.shape, dtype=np.float64)
        running = np.zeros(rewards.shape[1]) if self._returns is None else self._returns
        for t in range(rewards.shape[0]):
            running = running * discount[t] + rewards[t]
            returns[t] = running
            running = np.where(ends[t], 0.0, running)
        self._returns = running
        self.return_stats.update(returns.reshape(-1))
        return (rewards / self.return_stats.std).astype(np.float32)
