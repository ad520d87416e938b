"""The keys of the actor-critic algorithm configs (``algorithm/a2c.yaml``, ``algorithm/ppo.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.train.core.config import DEFAULT_ROLLOUT_EVALUATOR, AlgorithmConfig, bounded

__all__ = ["OPTIMIZER_NAMES", "ActorCriticAlgorithmConfig"]

OPTIMIZER_NAMES = ("adam", "rmsprop")
"""The values of ``algorithm.optimizer`` (the classes are in :mod:`maze.train.optim`, which imports torch)."""


@dataclass
class ActorCriticAlgorithmConfig(AlgorithmConfig):
    """Keys shared by A2C and PPO.

    Attributes:
        n_epochs: Epochs to train; 0 trains until early stopping (``patience``) or ``target_reward``.
        epoch_length: Updates (rollout + optimization) per epoch; statistics and evaluation follow each epoch.
        patience: Stop after this many epochs without a new best evaluation score.
        critic_burn_in_epochs: First epochs in which only the critic learns (the policy stays unchanged).
        n_rollout_steps: Env steps per env and rollout (a rollout has ``n_rollout_steps * concurrency`` env steps).
        lr: Learning rate; 0 leaves the model unchanged (a frozen baseline of an ``input_dir`` model).
        optimizer: ``adam``, or ``rmsprop`` (decay 0.99, as stable-baselines3's A2C).
        optimizer_eps: The optimizer's epsilon, added to the denominator of its update (stable-baselines3 uses 1e-5).
        lr_schedule: ``constant``, or ``linear``: ``lr`` decays linearly with the env steps to 0 at
            ``max_env_steps`` (as the RL-Zoo's ``lin_<lr>``; needs ``max_env_steps``).
        gamma: Discount per env step.
        gae_lambda: GAE lambda; 1.0 gives bootstrapped discounted returns.
        policy_loss_coef: Weight of the policy loss.
        value_loss_coef: Weight of the value loss (mean squared error).
        entropy_coef: Weight of the entropy bonus.
        max_grad_norm: Clip the gradient norm to this value (0: no clipping).
        normalize_advantages: Normalize the advantages of the policy gradient to mean 0 and standard deviation 1
            (PPO: per minibatch; A2C and IMPALA: per update).
        reward_scaling: Divide the rewards by a running standard deviation of the discounted return before the
            advantages and value targets are computed (see :mod:`maze.train.reward_scaling`); the critic then
            learns values in that scaled unit.
        device: ``cpu`` or ``cuda``.
        rollout_evaluator: Config (or instance) of the evaluator run after every epoch (None: none).
        target_reward: Stop as soon as an evaluation's mean return reaches this value (None: never).
    """

    n_epochs: int = bounded(0, ge=0)
    max_env_steps: Optional[int] = bounded(1_000_000, ge=1)
    epoch_length: int = bounded(160, ge=1)
    patience: int = bounded(15, ge=0)
    critic_burn_in_epochs: int = bounded(0, ge=0)
    n_rollout_steps: int = bounded(16, ge=1)
    lr: float = bounded(0.0007, ge=0)
    optimizer: str = "rmsprop"
    optimizer_eps: float = bounded(1e-5, gt=0)
    lr_schedule: str = "constant"
    gamma: float = bounded(0.99, gt=0, le=1)
    gae_lambda: float = bounded(1.0, ge=0, le=1)
    policy_loss_coef: float = bounded(1.0, ge=0)
    value_loss_coef: float = bounded(0.5, ge=0)
    entropy_coef: float = bounded(0.0, ge=0)
    max_grad_norm: float = bounded(0.5, ge=0)
    normalize_advantages: bool = False
    reward_scaling: bool = True
    device: str = "cpu"
    rollout_evaluator: Any = field(default_factory=lambda: dict(DEFAULT_ROLLOUT_EVALUATOR))
    target_reward: Optional[float] = None

    def validate(self) -> None:
        """Checks the keys (see :class:`AlgorithmConfig`) and that a ``linear`` schedule has an end.

        Raises:
            ConfigurationError: For a bad key, an unknown ``optimizer`` or ``lr_schedule`` or ``linear`` without ``max_env_steps``.
        """
        super().validate()
        if self.optimizer not in OPTIMIZER_NAMES:
            raise ConfigurationError(
                f"algorithm.optimizer={self.optimizer!r} is unknown; use one of {', '.join(OPTIMIZER_NAMES)}"
            )
        if self.lr_schedule not in ("constant", "linear"):
            raise ConfigurationError(f"algorithm.lr_schedule={self.lr_schedule!r} is unknown; use constant or linear")
        if self.lr_schedule == "linear" and self.max_env_steps is None:
            raise ConfigurationError(
                "algorithm.lr_schedule=linear decays the learning rate to 0 at algorithm.max_env_steps, which is not "
                "set; set algorithm.max_env_steps (e.g. 1000000) or algorithm.lr_schedule=constant"
            )

    def learning_rate(self, env_steps: int) -> float:
        """The learning rate after ``env_steps`` env steps in total (see ``lr_schedule``)."""
        if self.lr_schedule == "constant" or self.max_env_steps is None:
            return self.lr
        return self.lr * max(0.0, 1.0 - env_steps / self.max_env_steps)
