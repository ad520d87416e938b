"""A2C: synchronous advantage actor-critic, one gradient step per rollout."""

from __future__ import annotations

from maze.train.core.actor_critic.batch import ActorCriticBatch
from maze.train.core.actor_critic.trainer import ActorCritic
from maze.train.trainers.a2c.config import A2CAlgorithmConfig

__all__ = ["A2C"]


class A2C(ActorCritic):
    """Advantage actor-critic: the policy gradient ``-advantage * log_prob`` on the whole rollout.

    See :class:`~maze.train.core.actor_critic.trainer.ActorCritic` for the arguments.
    """

    config_class = A2CAlgorithmConfig

    def _update(self, batch: ActorCriticBatch, burn_in: bool) -> None:
        log_probs, entropies, values = self._forward(batch, None)
        policy_losses = [
            -(self._policy_advantages(advantage) * log_prob).mean()
            for advantage, log_prob in zip(batch.advantages, log_probs, strict=True)
        ]
        self._step_on_losses(policy_losses, entropies, values, batch.value_targets, burn_in)
