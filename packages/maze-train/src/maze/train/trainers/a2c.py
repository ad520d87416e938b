"""A2C: synchronous advantage actor-critic, one gradient step per rollout."""

from __future__ import annotations

from dataclasses import dataclass

from maze.train.trainers.actor_critic.batch import ActorCriticBatch
from maze.train.trainers.actor_critic.config import ActorCriticAlgorithmConfig
from maze.train.trainers.actor_critic.trainer import ActorCritic

__all__ = ["A2C", "A2CAlgorithmConfig"]


@dataclass
class A2CAlgorithmConfig(ActorCriticAlgorithmConfig):
    """The keys of ``algorithm/a2c.yaml`` (see :class:`ActorCriticAlgorithmConfig`)."""


class A2C(ActorCritic):
    """Advantage actor-critic: the policy gradient ``-advantage * log_prob`` on the whole rollout.

    See :class:`~maze.train.trainers.actor_critic.trainer.ActorCritic` for the arguments.
    """

    config_class = A2CAlgorithmConfig

    def _update(self, batch: ActorCriticBatch, burn_in: bool) -> None:
        log_probs, entropies, values = self._forward(batch, None)
        policy_losses = [
            -(self._policy_advantages(advantage) * log_prob).mean()
            for advantage, log_prob in zip(batch.advantages, log_probs, strict=True)
        ]
        self._step_on_losses(policy_losses, entropies, values, batch.value_targets, burn_in)
