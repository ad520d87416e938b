"""ActorCritic: the training loop shared by A2C and PPO (rollouts, updates, epochs, evaluation, stopping)."""

from __future__ import annotations

import dataclasses
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

import numpy as np
import torch
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.train.core.actor_critic.batch import ActorCriticBatch, prepare_actor_critic_batch
from maze.train.core.actor_critic.config import ActorCriticAlgorithmConfig
from maze.train.core.actor_critic.events import ActorCriticEvents
from maze.train.core.epoch_loop import EpochLoopTrainer
from maze.train.core.training_state import (
    OPTIMIZER_FILE,
    TRAINING_STATE_FILE,
    TrainingResult,
)
from maze.train.event_log import TrainerEventLog
from maze.train.guards import CollectorGuardedTrainer
from maze.train.optim import build_optimizer
from maze.train.reward_scaling import ReturnScaler
from maze.train.rollout.collector import RolloutBatch, RolloutCollector

__all__ = ["ActorCritic", "TrainingResult", "OPTIMIZER_FILE", "TRAINING_STATE_FILE"]


class ActorCritic(CollectorGuardedTrainer, EpochLoopTrainer, ABC):
    """Trains a :class:`TorchActorCritic` on-policy: each update collects a rollout and optimizes on it.

    One epoch is ``epoch_length`` updates; after it the ``train`` statistics (env and
    :class:`ActorCriticEvents`) are written, the evaluator runs (its score goes to model
    selection), and training stops once ``n_epochs`` are done, ``target_reward`` is
    reached, or ``patience`` epochs passed without a new best score.

    Args:
        algorithm_config: The algorithm keys.
        rollout_collector: Collects the rollouts (its vector env's envs have a LogStatsWrapper).
        evaluator: Scores the policy after every epoch (None: model selection gets the
            epoch's mean training return).
        model: The policy and critic.
        model_selection: Keeps the best model (typically a BestModelSelection).
    """

    needs_critic = True
    """Runners add the default critic when the model config has none."""
    state_independent_std = True
    """Gaussian heads learn one log-std parameter per action dimension unless the model config says otherwise:
    computed per state, the log-std collapses within a few on-policy updates (see
    :mod:`maze.perception.models.policies.state_independent_std`)."""
    config_class: type[ActorCriticAlgorithmConfig] = ActorCriticAlgorithmConfig
    """The algorithm config of the trainer."""
    events_class: type = ActorCriticEvents
    """The topic of the trainer's events (subclasses may extend ActorCriticEvents)."""

    def __init__(
        self,
        algorithm_config: ActorCriticAlgorithmConfig,
        rollout_collector: RolloutCollector,
        evaluator: Optional[Any],
        model: TorchActorCritic,
        model_selection: Optional[Any] = None,
    ) -> None:
        self.config = algorithm_config
        self.collector = rollout_collector
        self.evaluator = evaluator
        self.model = model
        self.model_selection = model_selection
        self.optimizer = build_optimizer(
            algorithm_config.optimizer, model.parameters(), lr=algorithm_config.lr, eps=algorithm_config.optimizer_eps
        )
        self._policy_parameters = model.policy.parameters()
        self._critic_parameters = model.critic.parameters()
        self._shared_parameters = bool(
            {id(p) for p in self._policy_parameters} & {id(p) for p in self._critic_parameters}
        )
        self.events = TrainerEventLog(self.events_class)
        self._env_stats = LogStatsAggregator()
        self.return_scaler = ReturnScaler() if algorithm_config.reward_scaling else None
        """Scales the rewards of the updates (``reward_scaling``; None: rewards as the env gives them)."""
        self.epochs_done = 0
        self.best_reward = float("-inf")
        self.state_dir: Optional[Path] = None
        """Where the resumable state is written at every epoch end (None: nowhere)."""

    # --- the loop --------------------------------------------------------------------------

    @property
    def policy(self) -> Any:
        """The policy the evaluator acts with."""
        return self.model.policy

    def _epoch_trained(self, env_steps: int, seconds: float) -> None:
        """Records the epoch's duration."""
        self.events.record(ActorCriticEvents.time_epoch, value=seconds)

    def _train_epoch(self) -> None:
        """The epoch's ``epoch_length`` updates (critic only during burn-in)."""
        burn_in = self.epochs_done < self.config.critic_burn_in_epochs
        for _ in range(self.config.epoch_length):
            self._train_step(burn_in)

    @property
    def sub_steps_per_env_step(self) -> int:
        """Sub-steps of one env step (the turns of all actors of a structured env)."""
        return self.collector.n_slots

    def _env_steps_per_epoch(self) -> int:
        """Env steps one epoch collects (the total of its progress bar)."""
        return self.config.epoch_length * self.collector.n_steps * self.collector.env.n_envs

    def _train_step(self, burn_in: bool) -> None:
        start = time.perf_counter()
        self._bar.set_postfix_str("rollout", refresh=False)
        rollout = self.collector.collect(self.model.policy)
        collected = time.perf_counter()
        if not self.guard.rollout_ok(rollout):
            return
        self._bar.set_postfix_str("update")
        self.optimizer.lr = self.config.learning_rate(self.env_steps)
        rollout = self._scaled(rollout, carry_returns=True)
        batch = prepare_actor_critic_batch(rollout, self.model, self.config.gamma, self.config.gae_lambda)
        self._update(batch, burn_in)
        self.events.record(ActorCriticEvents.time_rollout, value=collected - start)
        self.events.record(ActorCriticEvents.time_update, value=time.perf_counter() - collected)
        self.events.record(ActorCriticEvents.learning_rate, value=self.optimizer.lr)
        self.events.end_update()

    def close(self) -> None:
        """Closes the training envs."""
        self.collector.env.close()

    # --- reward scaling and advantages ----------------------------------------------------------

    def _scaled(self, rollout: Any, carry_returns: bool) -> Any:
        """The rollout with its rewards divided by the running return scale (``reward_scaling``; else as it is).

        Args:
            rollout: The collected rollout (rollouts of envs with dynamic agents are not scaled).
            carry_returns: The rollout continues the previous one env by env (a collector's rollouts), so the
                envs' running returns carry over; False for batches joined from other sources (IMPALA's actors).
        """
        if self.return_scaler is None or not isinstance(rollout, RolloutBatch):
            return rollout
        if not carry_returns:
            self.return_scaler.reset_returns()
        discount = np.where(rollout.env_step_ends(), self.config.gamma, 1.0)
        rewards = self.return_scaler.scale_rewards(rollout.rewards, rollout.terminated | rollout.truncated, discount)
        self.events.record(ActorCriticEvents.reward_scale, value=self.return_scaler.scale)
        return dataclasses.replace(rollout, rewards=rewards)

    def _policy_advantages(self, advantages: torch.Tensor) -> torch.Tensor:
        """``[m]`` advantages as the policy gradient takes them (normalized with ``normalize_advantages``)."""
        if not self.config.normalize_advantages or advantages.numel() < 2:
            return advantages
        return (advantages - advantages.mean()) / (advantages.std() + 1e-8)

    def extra_state_dicts(self) -> dict[str, Mapping[str, Any]]:
        """The return scaler's statistics (with ``reward_scaling``)."""
        return {} if self.return_scaler is None else {"return_scaler": self.return_scaler.state_dict()}

    def load_extra_state_dicts(self, state_dicts: Mapping[str, Mapping[str, Any]]) -> None:
        """Restores the return scaler's statistics (a run saved without them starts them fresh)."""
        if self.return_scaler is not None and "return_scaler" in state_dicts:
            self.return_scaler.load_state_dict(state_dicts["return_scaler"])

    # --- optimization ----------------------------------------------------------------------

    @abstractmethod
    def _update(self, batch: ActorCriticBatch, burn_in: bool) -> None:
        """Optimizes the model on one rollout (recording its ActorCriticEvents)."""

    def _step_on_losses(
        self,
        policy_losses: list[torch.Tensor],
        entropies: list[torch.Tensor],
        values: list[torch.Tensor],
        value_targets: list[torch.Tensor],
        burn_in: bool,
    ) -> None:
        """Combines the per-slot losses (summed over slots), takes a gradient step and records the events.

        Args:
            policy_losses: Per slot, the scalar policy loss of the algorithm.
            entropies: Per slot, ``[m]`` entropies of the action distributions.
            values: Per slot, ``[m]`` predicted values (with gradients).
            value_targets: Per slot, ``[m]`` targets of the values.
            burn_in: Critic burn-in: the policy's parameters keep their values.
        """
        config = self.config
        value_losses = [torch.mean((target - value) ** 2) for value, target in zip(values, value_targets, strict=True)]
        loss = sum(
            config.policy_loss_coef * policy_loss
            + config.value_loss_coef * value_loss
            - config.entropy_coef * entropy.mean()
            for policy_loss, value_loss, entropy in zip(policy_losses, value_losses, entropies, strict=True)
        )
        if not self.guard.loss_ok(loss) or not self._optimize(loss, burn_in):
            return
        for slot, (policy_loss, entropy, value, value_loss) in enumerate(
            zip(policy_losses, entropies, values, value_losses, strict=True)
        ):
            self.events.record(ActorCriticEvents.policy_loss, substep=slot, value=policy_loss.item())
            self.events.record(ActorCriticEvents.policy_entropy, substep=slot, value=entropy.mean().item())
            self.events.record(ActorCriticEvents.critic_value, substep=slot, value=value.mean().item())
            self.events.record(ActorCriticEvents.critic_value_loss, substep=slot, value=value_loss.item())

    def _optimize(self, loss: torch.Tensor, burn_in: bool) -> bool:
        """One gradient step; during critic burn-in the policy's parameters keep their values.

        Returns:
            False if the step was skipped because a gradient was not finite (``runner.non_finite=skip``).
        """
        self.optimizer.zero_grad()
        loss.backward()
        if burn_in:
            for parameter in self._policy_parameters:
                parameter.grad = None
        policy_norm = _grad_norm(self._policy_parameters)
        critic_norm = _grad_norm(self._critic_parameters)
        if self._shared_parameters:
            total_norm = _grad_norm(self.optimizer.parameters)
        else:
            total_norm = (policy_norm**2 + critic_norm**2) ** 0.5
        if not self.guard.gradients_ok(total_norm, self.model):
            self.optimizer.zero_grad()
            return False
        if 0 < self.config.max_grad_norm < total_norm:
            grads = [parameter.grad for parameter in self.optimizer.parameters if parameter.grad is not None]
            torch._foreach_mul_(grads, self.config.max_grad_norm / (total_norm + 1e-6))
        self.optimizer.step()
        self.events.record(ActorCriticEvents.policy_grad_norm, value=policy_norm)
        self.events.record(ActorCriticEvents.critic_grad_norm, value=critic_norm)
        return True

    def _forward(
        self, batch: ActorCriticBatch, rows: Optional[torch.Tensor]
    ) -> tuple[list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]:
        """Log-probabilities, entropies and values (with gradients) of ``rows`` per slot, each ``[m]``."""
        record = batch.record(rows)
        policy_output, critic_output = self.model.compute_actor_critic_output(record)
        return policy_output.log_probs(record.actions), policy_output.entropies, critic_output.values


def _grad_norm(parameters: list[torch.nn.Parameter]) -> float:
    """The L2 norm of all gradients of ``parameters`` (0 when none has one)."""
    grads = [parameter.grad for parameter in parameters if parameter.grad is not None]
    if not grads:
        return 0.0
    return float(torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads))))
