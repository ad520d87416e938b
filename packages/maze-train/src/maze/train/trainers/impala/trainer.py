"""IMPALA: a learner that trains on the rollouts of asynchronous actors, corrected off-policy with V-trace."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Optional

import numpy as np
import torch
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.train.core.actor_critic.batch import (
    bootstrap_values,
    interleave,
    per_slot,
    rollout_samples,
    spaces_record,
)
from maze.train.core.actor_critic.trainer import ActorCritic, TrainingResult
from maze.train.distributed.actors import DistributedActors, concatenate_outputs
from maze.train.guards import NonFiniteGuard
from maze.train.rollout.collector import RolloutBatch
from maze.train.trainers.impala.config import ImpalaAlgorithmConfig
from maze.train.trainers.impala.events import ImpalaEvents
from maze.train.trainers.impala.vtrace import VTraceReturns, from_importance_weights

logger = logging.getLogger(__name__)

__all__ = ["IMPALA", "ImpalaBatch"]

ImpalaBatch = tuple[RolloutBatch, list[np.ndarray]]
"""A learner batch: the joined rollout of the actor outputs and per slot their ``[T, N]`` behaviour log-probabilities."""


class IMPALA(ActorCritic):
    """The IMPALA learner (Espeholt et al. 2018) on top of the actor-critic loop.

    Each update takes ``actors_batch_size`` actor rollouts (produced with possibly older
    policy versions), computes V-trace targets and policy-gradient advantages with the
    learner's current policy and critic, takes one gradient step (loss combination,
    gradient clipping, guards and burn-in as in :class:`ActorCritic`) and broadcasts the
    new weights to the actors. Epochs, evaluation, model selection, early stopping and the
    resumable state are those of :class:`ActorCritic`.

    Args:
        algorithm_config: The algorithm keys.
        actors: Produce the rollouts (started by the first :meth:`train`, stopped by :meth:`close`).
        evaluator: Scores the policy after every epoch (None: the epoch's mean training return).
        model: The policy and critic of the learner.
        model_selection: Keeps the best model (typically a BestModelSelection).
    """

    config: ImpalaAlgorithmConfig
    config_class = ImpalaAlgorithmConfig
    events_class = ImpalaEvents
    # The learner has no collector: plain attributes take the place of the collector-backed
    # ``guard`` and ``env_steps`` properties of ActorCritic (class attributes shadow them).
    guard: NonFiniteGuard = NonFiniteGuard()
    """Checks rewards, losses and gradients of the updates (the runner sets ``runner.non_finite``)."""
    env_steps: int = 0
    """Env steps of all actor rollouts the learner consumed (restored when resuming)."""

    def __init__(
        self,
        algorithm_config: ImpalaAlgorithmConfig,
        actors: DistributedActors,
        evaluator: Optional[Any],
        model: TorchActorCritic,
        model_selection: Optional[Any] = None,
    ) -> None:
        self.guard = NonFiniteGuard()
        self.env_steps = 0
        super().__init__(algorithm_config, None, evaluator, model, model_selection)  # type: ignore[arg-type]
        self.actors = actors
        self._started = False
        self._sub_steps_per_env_step = 1
        self._on_env_steps: Optional[Callable[[int], Any]] = None

    @property
    def sub_steps_per_env_step(self) -> int:
        """Sub-steps of one env step (taken from the actors' rollouts; 1 before the first)."""
        return self._sub_steps_per_env_step

    def _env_steps_per_epoch(self) -> int:
        actors = self.actors
        return self.config.epoch_length * actors.actors_batch_size * actors.n_rollout_steps * actors.envs_per_actor

    def _report_env_steps(self, callback: Optional[Callable[[int], Any]]) -> None:
        self._on_env_steps = callback

    def train(self, n_epochs: Optional[int] = None) -> TrainingResult:
        """Starts the actors (first call) and trains like :meth:`ActorCritic.train`."""
        if not self._started:
            self.actors.start()
            self._started = True
        return super().train(n_epochs)

    def close(self) -> None:
        """Stops the actors (no worker outlives this call)."""
        self.actors.stop()

    def _epoch_trained(self, env_steps: int, seconds: float) -> None:
        """Records the epoch's duration; warns while lost actors are left out (see ``degraded_notice``)."""
        super()._epoch_trained(env_steps, seconds)
        notice = self.actors.degraded_notice()
        if notice:
            logger.warning(notice)

    def _collect_episode_stats(self) -> None:
        """Episode statistics arrive with the actor outputs (see :meth:`_train_step`)."""

    def _train_step(self, burn_in: bool) -> None:
        start = time.perf_counter()
        self._bar.set_postfix_str("waiting for actors", refresh=False)
        outputs = self.actors.collect_outputs()
        received = time.perf_counter()
        rollout, behaviour_log_probs = concatenate_outputs(outputs)
        self.env_steps += rollout.n_steps * rollout.n_envs
        self._sub_steps_per_env_step = rollout.n_slots
        if self._on_env_steps is not None:
            self._on_env_steps(rollout.n_steps * rollout.n_envs)
        self._bar.set_postfix_str("update")
        for output in outputs:
            for episodes in output.episode_stats:
                self._env_stats.add_episode_stats(episodes)
            self.events.record(ImpalaEvents.time_actor_rollout, value=output.rollout_seconds)
            self.events.record(ImpalaEvents.policy_lag, value=self.actors.policy_version - output.policy_version)
        if self.guard.rollout_ok(rollout):
            self.optimizer.lr = self.config.learning_rate(self.env_steps)
            self._update((self._scaled(rollout, carry_returns=False), behaviour_log_probs), burn_in)
            self.actors.broadcast_updated_policy(self.model.policy)
        end = time.perf_counter()
        self.events.record(ImpalaEvents.time_wait_for_data, value=received - start)
        self.events.record(ImpalaEvents.learner_wait_share, value=(received - start) / max(end - start, 1e-9))
        self.events.record(ImpalaEvents.time_update, value=end - received)
        self.events.record(ImpalaEvents.queue_size, value=self.actors.queue_size())
        self.events.record(ImpalaEvents.actor_restarts, value=self.actors.take_restarts())
        self.events.record(ImpalaEvents.learning_rate, value=self.optimizer.lr)
        self.events.end_update()

    def _update(self, batch: ImpalaBatch, burn_in: bool) -> None:  # type: ignore[override]
        """One V-trace actor-critic gradient step on a learner batch."""
        rollout, behaviour_log_probs = batch
        device = self.model.device
        record = spaces_record(*rollout_samples(rollout, device))
        policy_output, critic_output = self.model.compute_actor_critic_output(record)
        log_probs = policy_output.log_probs(record.actions)
        values = critic_output.values
        vtrace = self._vtrace(rollout, behaviour_log_probs, log_probs, values)
        advantages = per_slot(vtrace.pg_advantages, rollout.n_slots, device)
        targets = per_slot(vtrace.vs, rollout.n_slots, device)
        policy_losses = [
            -(self._policy_advantages(advantage) * log_prob).mean()
            for advantage, log_prob in zip(advantages, log_probs, strict=True)
        ]
        self._step_on_losses(policy_losses, policy_output.entropies, values, targets, burn_in)
        rhos = np.exp(vtrace.log_rhos)
        self.events.record(ImpalaEvents.vtrace_rho_mean, value=float(rhos.mean()))
        self.events.record(
            ImpalaEvents.vtrace_clipped_share, value=float((rhos > self.config.vtrace_clip_rho_threshold).mean())
        )

    @torch.no_grad()
    def _vtrace(
        self,
        rollout: RolloutBatch,
        behaviour_log_probs: list[np.ndarray],
        log_probs: list[torch.Tensor],
        values: list[torch.Tensor],
    ) -> VTraceReturns:
        """V-trace on the ``[T * K, N]`` timeline of the batch (targets computed without gradients)."""
        shape = (rollout.n_steps, rollout.n_envs)
        value_timeline = interleave([value.detach().cpu().numpy().reshape(shape) for value in values])
        log_rhos = interleave(
            [
                log_prob.detach().cpu().numpy().reshape(shape) - behaviour
                for log_prob, behaviour in zip(log_probs, behaviour_log_probs, strict=True)
            ]
        )
        return from_importance_weights(
            log_rhos,
            rollout.rewards,
            value_timeline,
            bootstrap_values(rollout, self.model, value_timeline),
            rollout.terminated,
            rollout.truncated,
            np.where(rollout.env_step_ends(), self.config.gamma, 1.0),
            lambda_=self.config.gae_lambda,
            clip_rho_threshold=self.config.vtrace_clip_rho_threshold,
            clip_pg_rho_threshold=self.config.vtrace_clip_pg_rho_threshold,
        )
