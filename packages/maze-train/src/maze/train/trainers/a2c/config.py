"""The algorithm keys of A2C (``algorithm/a2c.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass

from maze.train.core.actor_critic.config import ActorCriticAlgorithmConfig
from maze.train.core.config import bounded

__all__ = ["A2CAlgorithmConfig"]


@dataclass
class A2CAlgorithmConfig(ActorCriticAlgorithmConfig):
    """The keys of ``algorithm/a2c.yaml`` (see :class:`ActorCriticAlgorithmConfig`); A2C discounts by 0.995."""

    gamma: float = bounded(0.995, gt=0, le=1)
