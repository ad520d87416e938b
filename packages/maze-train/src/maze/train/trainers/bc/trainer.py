"""BCTrainer: behavioural cloning, supervised learning of a policy from recorded observation/action pairs."""

from __future__ import annotations

import logging
import math
import time
from typing import Any, Optional

import numpy as np
import torch
from maze.env.log_stats.global_state import get_stats_logger, increment_log_step
from maze.env.utils.termination import raise_lost_sigterm
from maze.perception.agent.torch_policy import TorchPolicy
from maze.train.core.training_state import ResumableTrainer, TrainingResult
from maze.train.guards import NonFiniteGuard
from maze.train.trainers.bc.config import BCAlgorithmConfig, build_optimizer
from maze.train.trainers.bc.data import ImitationData, NetworkBatch
from maze.train.trainers.bc.events import ImitationEvents, ImitationStats
from maze.train.trainers.bc.loss import BCLoss, add_up, record_loss_output

logger = logging.getLogger(__name__)

__all__ = ["BCTrainer", "DIAGNOSTICS_EVERY", "SPLIT_SEED_STATE", "build_optimizer"]

SPLIT_SEED_STATE = "validation_split"
"""The name under which ``optimizer.pt`` keeps the seed that split the data into training and validation items."""

DIAGNOSTICS_EVERY = 4
"""Updates between the training diagnostics (entropy, accuracy/error, gradient norm); losses are logged every update.

Computing them costs about a sixth of an update of a small policy; a sample of every
fourth update estimates their means over an evaluation period just as well.
"""


class BCTrainer(ResumableTrainer):
    """Trains a :class:`TorchPolicy` to reproduce recorded actions (behavioural cloning).

    An epoch is one shuffled pass over the training items in minibatches of
    ``batch_size``; each update minimizes the :class:`BCLoss` summed over the policy
    networks present in the minibatch. After every ``eval_every_k_iterations`` updates and
    at the end of every epoch the ``train`` statistics (:class:`ImitationEvents` of the
    updates since the last evaluation: losses of every update, entropy, accuracy/error and
    gradient norm of every :data:`DIAGNOSTICS_EVERY`-th) are written, the validation
    evaluator scores the policy by its negative validation loss, the optional rollout
    evaluator runs env episodes, and model selection receives the score (the validation
    score, or the rollout return when there is no validation data).

    Args:
        algorithm_config: The algorithm keys.
        train_data: The training items.
        policy: The policy to train.
        loss: The loss (built for the env's action spaces, with the config's ``entropy_coef``).
        validation: Scores the policy on held-out items (None: no validation data).
        rollout_evaluator: Runs env episodes at every evaluation (None: none).
        model_selection: Keeps the best model (typically a BestModelSelection).
        seed: Seed of the minibatch shuffling; the runner passes its split seed, which the trainer saves with its
            state (:meth:`extra_state_dicts`) so that a resumed run splits the data the same way.
    """

    needs_critic = False
    """BC trains a policy only."""
    config_class = BCAlgorithmConfig
    """The algorithm config of the trainer."""

    def __init__(
        self,
        algorithm_config: BCAlgorithmConfig,
        train_data: ImitationData,
        policy: TorchPolicy,
        loss: BCLoss,
        validation: Optional[Any] = None,
        rollout_evaluator: Optional[Any] = None,
        model_selection: Optional[Any] = None,
        seed: Optional[int] = None,
    ) -> None:
        self.config = algorithm_config
        self.data = train_data
        self.policy = policy
        self.loss = loss
        self.validation = validation
        self.rollout_evaluator = rollout_evaluator
        self.model_selection = model_selection
        self.optimizer = build_optimizer(algorithm_config.optimizer, policy.parameters())
        self.stats = ImitationStats()
        self.seed = seed
        self._generator = np.random.default_rng(seed)
        self._network_parameters = {key: list(network.parameters()) for key, network in policy.networks.items()}
        self.epochs_done = 0
        self.iterations = 0
        self.best_reward = float("-inf")
        self.samples_trained = 0
        self.guard = NonFiniteGuard()
        """Checks the losses and (with the diagnostics) the gradients (runners configure it)."""

    def extra_state_dicts(self) -> dict[str, dict[str, torch.Tensor]]:
        """The seed that split the data (the runner's split seed), so that a resumed run validates on the same items."""
        return {} if self.seed is None else {SPLIT_SEED_STATE: {"seed": torch.tensor(self.seed, dtype=torch.int64)}}

    @property
    def env_steps(self) -> int:
        """0: BC learns from recorded data only."""
        return 0

    @env_steps.setter
    def env_steps(self, value: int) -> None:
        """BC collects no env steps; a restored count is ignored."""

    def train(self, n_epochs: Optional[int] = None) -> TrainingResult:
        """Trains until ``n_epochs`` epochs are done in total, counting those of a resumed run (default: the config's).

        ``max_seconds`` is checked at every epoch end (see :mod:`~maze.train.core.budget`).

        Returns:
            What was achieved (``env_steps`` is 0: BC learns from recorded data only;
            ``best_reward`` is the best score; an interrupted call's is :meth:`result_so_far`).
        """
        limit = self.config.n_epochs if n_epochs is None else n_epochs
        budget = self.start_budget()
        nothing = self.nothing_to_train(limit)
        if nothing is not None:  # a resumed run: its state stays resumable in the new run directory
            self.save_training_state()
            return self.result_so_far(False, nothing)
        every = self.config.eval_every_k_iterations
        self.policy.train()
        stop = f"{limit} epochs done"
        while self.epochs_done < limit:
            raise_lost_sigterm()
            start = time.perf_counter()
            self.guard.epoch = self.epochs_done
            for batch in self.data.minibatches(self.config.batch_size, self._generator):
                self._update(batch)
                self.iterations += 1
                if every and self.iterations % every == 0:
                    budget.train_seconds += time.perf_counter() - start
                    self.evaluate(epoch=self.epochs_done)
                    start = time.perf_counter()
            budget.train_seconds += time.perf_counter() - start
            self.epochs_done += 1
            if not (every and self.iterations % every == 0):
                self.evaluate(epoch=self.epochs_done - 1)
            self.save_training_state()
            spent = budget.exhausted(self.env_steps)
            if spent is not None:
                stop = spent
                break
        return self.result_so_far(False, stop)

    def evaluate(self, epoch: Optional[int] = None) -> float:
        """Writes the ``train`` statistics, evaluates (validation and rollouts) and updates model selection.

        Args:
            epoch: The epoch (counted from 0, like the other trainers' ``Iteration`` headers) that
                the evaluation belongs to; None: the one in progress.

        Returns:
            The score: the negative validation loss, or the rollout return without validation data.
        """
        epoch = self.epochs_done if epoch is None else epoch
        logger.info(f"********** Epoch {epoch}: evaluation after update {self.iterations} **********")
        increment_log_step()
        if self.stats:  # updates since the last evaluation
            for key, parameters in self._network_parameters.items():
                self.stats.add(ImitationEvents.policy_l2_norm, _norm(parameters), step_key=key)
            get_stats_logger("train").log_stats(self.stats.reduce())
        self.policy.eval()
        try:
            score = self.validation.evaluate(self.policy) if self.validation is not None else float("-inf")
            if self.rollout_evaluator is not None:
                rollout_return = self.rollout_evaluator.evaluate(self.policy)
                if self.validation is None:
                    score = rollout_return
        finally:
            self.policy.train()
        if self.model_selection is not None:
            self.model_selection.update(score)
        self.best_reward = max(self.best_reward, score)
        return score

    def _update(self, batch: NetworkBatch) -> None:
        """One gradient step on a minibatch; records the ImitationEvents of every network in it."""
        diagnose = self.iterations % DIAGNOSTICS_EVERY == 0
        results = {}
        for key, rows in batch.items():
            logits = self.policy.compute_logits_dict(rows.observations, rows.actor_id)
            results[key] = self.loss(rows.actor_id[0], logits, rows.actions, with_metrics=diagnose)
        total = add_up(result.loss for result in results.values())
        self.optimizer.zero_grad()
        if not self.guard.loss_ok(total, "imitation loss"):
            return
        total.backward()
        grad_norms = {key: _norm(self._network_parameters[key], grad=True) for key in results} if diagnose else {}
        if grad_norms and not self.guard.gradients_ok(math.hypot(*grad_norms.values()), self.policy):
            self.optimizer.zero_grad()
            return
        self.optimizer.step()
        for key, result in results.items():
            record_loss_output(self.stats, key, result)
            if diagnose:
                self.stats.add(ImitationEvents.policy_grad_norm, grad_norms[key], step_key=key)
            self.samples_trained += len(next(iter(batch[key].actions.values())))


def _norm(parameters: list[torch.nn.Parameter], grad: bool = False) -> float:
    """The L2 norm of the parameters (or of their gradients; 0 when none has one).

    Summed in Python from the per-tensor norms: cheaper than stacking them for one more
    torch call at the sizes of small policies.
    """
    tensors = [p.grad if grad else p.detach() for p in parameters]
    tensors = [tensor for tensor in tensors if tensor is not None]
    return math.sqrt(sum(norm.item() ** 2 for norm in torch._foreach_norm(tensors))) if tensors else 0.0
