"""ESTrainer: OpenAI evolution strategies on the flat parameter vector of a TorchPolicy."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Optional

import numpy as np
import torch
from maze.env.errors import ConfigurationError, MazeError
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.utils.factory import Factory
from maze.perception.agent.torch_policy import TorchPolicy
from maze.train.core.epoch_loop import EpochLoopTrainer
from maze.train.core.training_state import TrainingResult
from maze.train.distributed.es.noise_table import SharedNoiseTable
from maze.train.distributed.es.parameters import get_flat_parameters, set_flat_parameters
from maze.train.distributed.es.rollouts import ESDistributedRollouts, ESRolloutResult
from maze.train.distributed.es.worker import wrap_policy
from maze.train.event_log import TrainerEventLog
from maze.train.guards import NonFiniteGuard
from maze.train.trainers.es.config import ESAlgorithmConfig
from maze.train.trainers.es.events import ESEvents
from maze.train.trainers.es.gradient import es_gradient
from maze.train.trainers.es.optimizers.base_optimizer import Optimizer

__all__ = ["ESTrainer", "MAX_ABORTED_PAIRS"]

MAX_ABORTED_PAIRS = 1000
"""An iteration whose first this many training pairs were all aborted stops the run."""


class ESTrainer(EpochLoopTrainer):
    """Trainer class for OpenAI Evolution Strategies (Salimans et al. 2017).

    Every iteration (epoch) asks the distributed rollouts for antithetic episode pairs around
    the current parameters until ``n_rollouts_per_update`` episodes and
    ``n_timesteps_per_update`` steps are reached, estimates the gradient from the centered
    ranks of the returns, and lets the optimizer take one step (with the L2 penalty). Then
    the ``train`` statistics (env episodes and :class:`ESEvents`) are written and the
    evaluator scores the policy (its score goes to model selection; without an evaluator
    the mean training return does).

    Args:
        algorithm_config: The algorithm keys.
        torch_policy: The policy to train (its parameters are updated in place).
        shared_noise: The noise table the workers perturb the parameters with.
        evaluator: Scores the (wrapped) policy after every iteration (None: the mean training return).
        model_selection: Receives the scores (a RolloutEvaluator updates its own model selection).
    """

    needs_critic = False
    """ES trains a policy only."""
    config_class: type[ESAlgorithmConfig] = ESAlgorithmConfig
    """The algorithm config of the trainer."""

    def __init__(
        self,
        algorithm_config: ESAlgorithmConfig,
        torch_policy: TorchPolicy,
        shared_noise: SharedNoiseTable,
        evaluator: Optional[Any] = None,
        model_selection: Optional[Any] = None,
    ) -> None:
        self.config = ESAlgorithmConfig.from_config(algorithm_config)
        self.torch_policy = torch_policy
        self.policy = wrap_policy(torch_policy, self.config.policy_wrapper)
        self.shared_noise = shared_noise
        self.evaluator = evaluator
        self.model_selection = model_selection
        self.optimizer: Optimizer = Factory(Optimizer).instantiate(self.config.optimizer)
        self.theta = get_flat_parameters(torch_policy)
        self.events = TrainerEventLog(ESEvents)
        self._env_stats = LogStatsAggregator()
        self.epochs_done = 0
        self.total_episodes = 0
        self.total_steps = 0
        self.best_reward = float("-inf")
        self._rollouts: Optional[ESDistributedRollouts] = None
        self._train_start = 0.0
        self.guard = NonFiniteGuard()
        """Checks the returns and the gradient estimate (runners configure it with ``runner.non_finite``)."""

    @property
    def env_steps(self) -> int:
        """Training env steps in total (restored when resuming)."""
        return self.total_steps

    @env_steps.setter
    def env_steps(self, value: int) -> None:
        self.total_steps = value

    def train(  # type: ignore[override]
        self, n_epochs: Optional[int], distributed_rollouts: ESDistributedRollouts
    ) -> TrainingResult:
        """Trains until ``n_epochs`` iterations are done (0: no limit) or ``target_reward`` is reached.

        Args:
            n_epochs: Iterations in total, counting those of a resumed run (None: the config's ``n_epochs``).
            distributed_rollouts: Where the episodes run.

        Returns:
            What was achieved.

        Raises:
            MazeError: If a worker failed, or every training pair of an iteration was aborted.
        """
        self._rollouts = distributed_rollouts
        self._train_start = time.perf_counter()
        return super().train(n_epochs)

    def _train_epoch(self) -> None:
        """One iteration: the training pairs, then one optimizer step."""
        start = time.perf_counter()
        pairs, aborted = self._collect(self._rollouts)
        collected = time.perf_counter()
        self._update(pairs)
        self.events.record(ESEvents.time_rollouts, value=collected - start)
        self.events.record(ESEvents.time_update, value=time.perf_counter() - collected)
        self.events.record(ESEvents.aborted_rollouts, value=aborted)

    def _epoch_trained(self, env_steps: int, seconds: float) -> None:
        """Records the episode and step counts and the time since training started."""
        self.events.record(ESEvents.total_episode_count, value=self.total_episodes)
        self.events.record(ESEvents.total_step_count, value=self.total_steps)
        self.events.record(ESEvents.real_time, value=time.perf_counter() - self._train_start)

    def _collect_episode_stats(self) -> None:
        """The training episodes' statistics arrive with the pairs (see :meth:`_collect`)."""

    def _collect(self, distributed_rollouts: ESDistributedRollouts) -> tuple[list[ESRolloutResult], int]:
        """The iteration's training pairs (until both minimums are reached) and the number of aborted pairs."""
        config = self.config
        pairs: list[ESRolloutResult] = []
        aborted = episodes = steps = 0
        stream = distributed_rollouts.generate_rollouts(self.theta.numpy(), config.noise_stddev, config.max_steps)
        try:
            for result in stream:
                if result.aborted:
                    aborted += 1
                    if not pairs and aborted >= MAX_ABORTED_PAIRS:
                        raise MazeError(
                            f"the first {aborted} ES training rollouts of iteration {self.epochs_done} were all "
                            "aborted (ESAbortException); check the env or the policy_wrapper that raises it"
                        )
                    continue
                pairs.append(result)
                self._env_stats.add_episode_stats(result.episode_stats)
                episodes += 2
                steps += int(result.lengths.sum())
                self._bar.update(int(result.lengths.sum()))
                if episodes >= config.n_rollouts_per_update and steps >= config.n_timesteps_per_update:
                    break
        finally:
            stream.close()
        self.total_episodes += episodes
        self.total_steps += steps
        return pairs, aborted

    def _update(self, pairs: list[ESRolloutResult]) -> None:
        """One optimizer step along the ES gradient estimate of ``pairs`` (plus the L2 penalty)."""
        dim = self.theta.numel()
        returns = np.stack([pair.returns for pair in pairs]).astype(np.float64)
        found = next((pair.non_finite_observation for pair in pairs if pair.non_finite_observation), None)
        if not self.guard.observation_ok(found) or not self.guard.episode_returns_ok(returns):
            return
        noise = np.stack([self.shared_noise.get(pair.noise_index, dim) for pair in pairs])
        ascent = torch.from_numpy(es_gradient(returns, noise).astype(np.float32))
        gradient = self.config.l2_penalty * self.theta - ascent
        if not self.guard.loss_ok(torch.linalg.vector_norm(gradient), "norm of the ES gradient estimate"):
            return
        ratio = self.optimizer.update(self.theta, gradient)
        set_flat_parameters(self.torch_policy, self.theta)
        self.events.record(ESEvents.policy_grad_norm, value=float(torch.linalg.vector_norm(gradient)))
        self.events.record(ESEvents.policy_l2_norm, value=float(torch.linalg.vector_norm(self.theta)))
        self.events.record(ESEvents.update_ratio, value=ratio)

    def load_optimizer_state(self, state: Mapping[str, Any]) -> None:
        """Takes the optimizer state of a previous run of the same policy (e.g. ``optimizer.pt`` of the newest checkpoint of ``input_dir``).

        Raises:
            ConfigurationError: If its moment vectors do not have one entry per policy parameter.
        """
        vectors = [tensor for tensor in _tensors(state) if tensor.ndim == 1]
        if any(vector.numel() != self.theta.numel() for vector in vectors):
            raise ConfigurationError(
                f"the optimizer state belongs to other parameters (its vectors have {vectors[0].numel()} entries, "
                f"the policy has {self.theta.numel()} parameters)"
            )
        self.optimizer.load_state_dict(state)


def _tensors(state: Any) -> list[torch.Tensor]:
    """The tensors of a (nested) state dict."""
    if isinstance(state, torch.Tensor):
        return [state]
    if isinstance(state, dict):
        return [tensor for value in state.values() for tensor in _tensors(value)]
    return []
