"""PPO: proximal policy optimization with the clipped surrogate objective and minibatch epochs."""

from __future__ import annotations

import torch
from maze.train.core.actor_critic.batch import ActorCriticBatch
from maze.train.core.actor_critic.trainer import ActorCritic
from maze.train.trainers.ppo.config import PPOAlgorithmConfig

__all__ = ["PPO", "clipped_surrogate_loss"]


def clipped_surrogate_loss(
    log_probs: torch.Tensor, old_log_probs: torch.Tensor, advantages: torch.Tensor, clip_range: float
) -> torch.Tensor:
    """The negated clipped surrogate objective of PPO (Schulman et al. 2017).

    Args:
        log_probs: ``[m]`` log-probabilities of the taken actions under the current policy.
        old_log_probs: ``[m]`` their log-probabilities when the rollout was collected (fixed).
        advantages: ``[m]`` advantages.
        clip_range: The ratio is clipped to ``[1 - clip_range, 1 + clip_range]``.

    Returns:
        The scalar loss ``-mean(min(ratio * A, clip(ratio) * A))``.
    """
    ratio = torch.exp(log_probs - old_log_probs)
    clipped = torch.clamp(ratio, 1.0 - clip_range, 1.0 + clip_range)
    return -torch.min(ratio * advantages, clipped * advantages).mean()


class PPO(ActorCritic):
    """PPO: ``n_optimization_epochs`` passes over each rollout in shuffled minibatches of ``batch_size`` rows.

    The old log-probabilities are those computed once when the rollout was prepared;
    with ``normalize_advantages`` the advantages are normalized per minibatch. See
    :class:`~maze.train.core.actor_critic.trainer.ActorCritic` for the arguments.
    """

    config: PPOAlgorithmConfig
    config_class = PPOAlgorithmConfig

    def _update(self, batch: ActorCriticBatch, burn_in: bool) -> None:
        rows_total = batch.n_rows
        size = max(1, min(self.config.batch_size, rows_total))
        for _ in range(self.config.n_optimization_epochs):
            order = torch.randperm(rows_total)
            for start in range(0, rows_total - size + 1, size):
                rows = order[start : start + size]
                log_probs, entropies, values = self._forward(batch, rows)
                policy_losses = [
                    clipped_surrogate_loss(log_prob, old, self._policy_advantages(advantage), self.config.clip_range)
                    for log_prob, old, advantage in zip(
                        log_probs, batch.rows("old_log_probs", rows), batch.rows("advantages", rows), strict=True
                    )
                ]
                self._step_on_losses(policy_losses, entropies, values, batch.rows("value_targets", rows), burn_in)
