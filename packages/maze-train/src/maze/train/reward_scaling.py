"""Return-based reward scaling: rewards divided by a running standard deviation of the discounted return.

An env's rewards can be in the thousands or in the thousandths; the critic's value targets and
its loss scale with them. With targets in the thousands the value loss swamps the policy
gradient wherever the two share parameters or a gradient-norm clip, and the critic's output
layer needs many updates just to reach the scale. Dividing every reward by the running
standard deviation of the discounted return (per env: ``G <- gamma * G + r``, reset at
episode ends) puts the value targets of any env near unit scale, whatever the reward's unit.
The rewards are only divided (never shifted), so the ordering of returns and the sign of
every reward stay as they were; the critic learns values in the scaled unit.

The statistics are part of the trainer's resumable state (:meth:`ReturnScaler.state_dict`). Unlike
maze-env's ``ReturnNormalizationRewardWrapper`` (the same division inside the env), the trainer's
statistics and reward logs stay in the env's own units: only the updates see scaled rewards.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch
from maze.env.utils.running_stats import CumulativeMovingMeanStd

__all__ = ["ReturnScaler"]


class ReturnScaler:
    """Divides rewards by the running standard deviation of ``G``, the discounted return of each env.

    Args:
        epsilon: The smallest divisor (keeps the scale finite before any return varies).

    Attributes:
        return_stats: Mean and standard deviation of all returns seen.
    """

    def __init__(self, epsilon: float = 1e-8) -> None:
        self.return_stats = CumulativeMovingMeanStd(epsilon=epsilon)
        self._returns: np.ndarray
        self.reset_returns()

    @property
    def scale(self) -> float:
        """The divisor of the rewards (1 before the first update)."""
        return float(self.return_stats.std) if self.return_stats.count else 1.0

    def reset_returns(self) -> None:
        """Starts the envs' running returns at 0 (for a rollout that does not continue the previous one)."""
        self._returns = np.zeros(0)

    def scale_rewards(self, rewards: np.ndarray, episode_ends: np.ndarray, discount: np.ndarray) -> np.ndarray:
        """Updates the statistics with a rollout's returns and returns its rewards divided by the new scale.

        Args:
            rewards: ``[T, N]`` rewards of ``T`` transitions of ``N`` envs (time-major).
            episode_ends: ``[T, N]`` whether an episode ended (terminated or truncated) at the transition.
            discount: ``[T]`` the discount of each transition (``gamma``; 1 between the sub-steps of one env step).

        Returns:
            ``[T, N]`` float32 scaled rewards.
        """
        if self._returns.shape != rewards.shape[1:]:
            self._returns = np.zeros(rewards.shape[1:])
        returns = np.empty(rewards.shape)
        running = self._returns  # updated in place, row by row
        for step in range(rewards.shape[0]):
            running *= discount[step]
            running += rewards[step]
            returns[step] = running
            running[episode_ends[step]] = 0.0
        self.return_stats.update(returns.reshape(-1))
        return (rewards / self.scale).astype(np.float32)

    def state_dict(self) -> dict[str, torch.Tensor]:
        """The statistics as a tensors-only state dict (saved with the trainer's resumable state)."""
        stats = self.return_stats
        return {"statistics": torch.tensor([stats.count, stats.mean, stats.var], dtype=torch.float64)}

    def load_state_dict(self, state: Mapping[str, torch.Tensor]) -> None:
        """Restores :meth:`state_dict` (the envs' running returns start at 0 again)."""
        count, mean, var = (float(value) for value in state["statistics"])
        self.return_stats.restore(int(count), mean, var)
