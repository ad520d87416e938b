"""The keys of the actor-critic algorithm configs (``algorithm/a2c.yaml``, ``algorithm/ppo.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from maze.train.trainers.common.config import AlgorithmConfig, bounded

__all__ = ["ActorCriticAlgorithmConfig"]


@dataclass
class ActorCriticAlgorithmConfig(AlgorithmConfig):
    """Keys shared by A2C and PPO.

    Attributes:
        n_epochs: Epochs to train; 0 trains until early stopping (``patience``) or ``target_reward``.
        epoch_length: Updates (rollout + optimization) per epoch; statistics and evaluation follow each epoch.
        patience: Stop after this many epochs without a new best evaluation score.
        critic_burn_in_epochs: First epochs in which only the critic learns (the policy stays unchanged).
        n_rollout_steps: Env steps per env and rollout (a rollout has ``n_rollout_steps * concurrency`` env steps).
        lr: Learning rate (Adam); 0 leaves the model unchanged (a frozen baseline of an ``input_dir`` model).
        adam_eps: Adam's epsilon, added to the denominator of its update (stable-baselines3 uses 1e-5).
        gamma: Discount per env step.
        gae_lambda: GAE lambda; 1.0 gives bootstrapped discounted returns.
        policy_loss_coef: Weight of the policy loss.
        value_loss_coef: Weight of the value loss (mean squared error).
        entropy_coef: Weight of the entropy bonus.
        max_grad_norm: Clip the gradient norm to this value (0: no clipping).
        device: ``cpu`` or ``cuda``.
        rollout_evaluator: Config (or instance) of the evaluator run after every epoch.
        target_reward: Stop as soon as an evaluation's mean return reaches this value (None: never).
    """

    n_epochs: int = bounded(0, ge=0)
    epoch_length: int = bounded(25, ge=1)
    patience: int = bounded(15, ge=0)
    critic_burn_in_epochs: int = bounded(0, ge=0)
    n_rollout_steps: int = bounded(100, ge=1)
    lr: float = bounded(0.0005, ge=0)
    adam_eps: float = bounded(1e-8, gt=0)
    gamma: float = bounded(0.98, gt=0, le=1)
    gae_lambda: float = bounded(1.0, ge=0, le=1)
    policy_loss_coef: float = bounded(1.0, ge=0)
    value_loss_coef: float = bounded(0.5, ge=0)
    entropy_coef: float = bounded(0.00025, ge=0)
    max_grad_norm: float = bounded(0.0, ge=0)
    device: str = "cpu"
    rollout_evaluator: Any = None
    target_reward: Optional[float] = None
