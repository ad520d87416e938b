"""The algorithm keys of PPO (``algorithm/ppo.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass

from maze.train.core.actor_critic.config import ActorCriticAlgorithmConfig
from maze.train.core.config import bounded

__all__ = ["PPOAlgorithmConfig"]


@dataclass
class PPOAlgorithmConfig(ActorCriticAlgorithmConfig):
    """The keys of ``algorithm/ppo.yaml`` (see :class:`ActorCriticAlgorithmConfig`).

    Attributes:
        batch_size: Rows (env steps of one env) per minibatch.
        n_optimization_epochs: Passes over the rollout per update.
        clip_range: The clipping range of the probability ratio.
    """

    epoch_length: int = bounded(10, ge=1)
    n_rollout_steps: int = bounded(256, ge=1)
    lr: float = bounded(0.0003, ge=0)
    optimizer: str = "adam"
    gae_lambda: float = bounded(0.95, ge=0, le=1)
    normalize_advantages: bool = True
    batch_size: int = bounded(64, ge=1)
    n_optimization_epochs: int = bounded(10, ge=1)
    clip_range: float = bounded(0.2, gt=0)
