"""The algorithm keys of A2C (``algorithm/a2c.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass

from maze.train.core.actor_critic.config import ActorCriticAlgorithmConfig

__all__ = ["A2CAlgorithmConfig"]


@dataclass
class A2CAlgorithmConfig(ActorCriticAlgorithmConfig):
    """The keys of ``algorithm/a2c.yaml`` (see :class:`ActorCriticAlgorithmConfig`)."""
