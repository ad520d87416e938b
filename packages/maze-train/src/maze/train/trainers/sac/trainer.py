"""SAC: soft actor-critic with twin Q networks, target networks and automatic entropy tuning."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Optional, Union

import torch
from maze.distributions import DictProbabilityDistribution
from maze.env.core.actor import StepKeyType
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.train.core.epoch_loop import EpochLoopTrainer
from maze.train.event_log import TrainerEventLog
from maze.train.optim import Adam
from maze.train.replay.replay_buffer import TransitionBatch
from maze.train.replay.workers import BaseDistributedWorkersWithBuffer
from maze.train.trainers.sac.config import SACAlgorithmConfig
from maze.train.trainers.sac.events import SACEvents
from maze.train.trainers.sac.losses import discrete_log_probs, q_of_taken_actions, sample_with_log_prob, soft_update
from maze.train.trainers.sac.substeps import SubStep, sub_steps
from maze.train.trainers.sac.twin_q import TwinQ
from maze.train.trainers.sac.working_copies import WorkingCopies, slow_bfloat16_warning
from maze.train.utils import delegated

logger = logging.getLogger(__name__)

__all__ = ["SAC"]


_STAT_EVENTS = (
    SACEvents.policy_loss,
    SACEvents.policy_entropy,
    SACEvents.critic_value,
    SACEvents.critic_value_loss,
    SACEvents.entropy_coef,
    SACEvents.entropy_coef_loss,
    SACEvents.policy_grad_norm,
    SACEvents.critic_grad_norm,
)


class SAC(EpochLoopTrainer):
    """Trains a policy and twin Q critics off-policy from replay buffers filled by workers.

    Structured envs train every sub-step's policy, Q networks and entropy coefficient on the
    transitions of its own buffer (see :mod:`maze.train.replay.substep_transitions`). One iteration collects ``rollouts_per_iteration`` rollouts into the buffer and takes
    ``num_batches_per_iter`` gradient steps; an epoch is ``epoch_length`` iterations, after
    which the ``train`` statistics (env and :class:`SACEvents`) are written, the evaluator
    runs (its score goes to model selection) and training stops once ``n_epochs`` are done,
    ``target_reward`` is reached, or ``patience`` epochs passed without a new best score.

    Args:
        algorithm_config: The algorithm keys.
        workers: Collect transitions into the replay buffers (already filled initially).
        evaluator: Scores the policy after every epoch (None: the epoch's mean training return).
        model: The policy and the first Q critic (what ``state_dict.pt`` holds).
        second_critic: The second Q critic (same architecture, own initialization).
        model_selection: Keeps the best model (typically a BestModelSelection).
    """

    needs_critic = True
    """Runners add the default critic when the model config has none."""
    config_class: type[SACAlgorithmConfig] = SACAlgorithmConfig
    """The algorithm config of the trainer."""

    def __init__(
        self,
        algorithm_config: SACAlgorithmConfig,
        workers: BaseDistributedWorkersWithBuffer,
        evaluator: Optional[Any],
        model: TorchActorCritic,
        second_critic: Any,
        model_selection: Optional[Any] = None,
    ) -> None:
        config = algorithm_config
        self.config = config
        self.workers = workers
        self.evaluator = evaluator
        self.model = model
        self.model_selection = model_selection
        self.policy = model.policy
        self.sub_steps = sub_steps(model.critic.action_spaces_dict, config.target_entropy_multiplier)
        self.critics = TwinQ(model.critic, second_critic)
        self.target_critics = self.critics.copy()
        working_dtype = torch.bfloat16 if config.mixed_precision else None
        if config.mixed_precision and (warning := slow_bfloat16_warning(model.device)):
            logger.info(warning)
        self._working_policy = WorkingCopies([self.policy], working_dtype)
        self._working_critics = WorkingCopies(self.critics.critics, working_dtype)
        self._working_targets = WorkingCopies(self.target_critics.critics, working_dtype)
        self.train_policy = self._working_policy.models[0]
        """The policy the gradient steps run (``policy`` itself, or its bfloat16 copy with ``mixed_precision``)."""
        self.train_critics = TwinQ(*self._working_critics.models) if config.mixed_precision else self.critics
        """The Q networks the gradient steps run (``critics``, or bfloat16 copies)."""
        self.train_target_critics = (
            TwinQ(*self._working_targets.models) if config.mixed_precision else self.target_critics
        )
        """The target Q networks the gradient steps run (``target_critics``, or bfloat16 copies)."""
        self.target_entropies = torch.tensor(
            [sub_step.target_entropy for sub_step in self.sub_steps.values()], device=model.device
        )
        self.log_entropy_coef = torch.nn.Parameter(
            torch.full((len(self.sub_steps),), math.log(config.entropy_coef), device=model.device)
        )
        """``log alpha`` of every sub-step ``[K]``."""
        self.policy_optimizer = Adam(self.policy.parameters(), lr=config.lr, eps=config.optimizer_eps)
        self.critic_optimizer = Adam(self.critics.parameters, lr=config.lr, eps=config.optimizer_eps)
        self.entropy_optimizer = Adam([self.log_entropy_coef], lr=config.entropy_coef_lr, eps=config.optimizer_eps)
        self.events = TrainerEventLog(SACEvents)
        self._env_stats = LogStatsAggregator()
        self._update_stats: list[torch.Tensor] = []
        self._indices: dict[tuple[int, ...], torch.Tensor] = {}
        self.updates = 0
        self.epochs_done = 0
        self.best_reward = float("-inf")

    @property
    def optimizer(self) -> Adam:
        """The policy's optimizer (the critics' and the entropy coefficient's are extra state)."""
        return self.policy_optimizer

    guard = delegated("workers", "guard", "Checks rewards, losses and gradients (shared with the workers).")
    env_steps = delegated(
        "workers", "env_steps", "Env steps of the rollouts added to the replay buffer (restored when resuming)."
    )

    def close(self) -> None:
        """Stops the workers (closes their envs; no worker process outlives this call)."""
        self.workers.close()

    @property
    def entropy_coef(self) -> float:
        """The current entropy coefficient alpha (the mean over sub-steps)."""
        return float(self.log_entropy_coef.detach().exp().mean())

    # --- the loop --------------------------------------------------------------------------

    def _train_epoch(self) -> None:
        """The epoch's ``epoch_length`` iterations (on working copies of the current parameters)."""
        self._refresh_working_copies()  # the masters may have been loaded (resume) since the last epoch
        for _ in range(self.config.epoch_length):
            self._iteration()

    def _epoch_trained(self, env_steps: int, seconds: float) -> None:
        """Records the epoch's duration; warns while lost workers are left out (see ``degraded_notice``)."""
        self.events.record(SACEvents.time_epoch, value=seconds)
        notice = self.workers.degraded_notice()
        if notice:
            logger.warning(notice)

    @property
    def sub_steps_per_env_step(self) -> int:
        """Sub-steps of one env step (of the collected rollouts)."""
        return self.workers.sub_steps

    def _env_steps_per_epoch(self) -> int:
        """Env steps of the epoch's rollouts (the total of its progress bar)."""
        workers, config = self.workers, self.config
        return config.epoch_length * config.rollouts_per_iteration * workers.n_rollout_steps * workers.n_envs

    def _report_env_steps(self, callback: Optional[Callable[[int], Any]]) -> None:
        self.workers.on_env_steps = callback

    def _collect_episode_stats(self) -> None:
        """The workers' finished training episodes."""
        self.workers.collect_episode_stats(self._env_stats)

    def _iteration(self) -> None:
        """Collects the rollouts of one iteration and takes its gradient steps."""
        start = time.perf_counter()
        for _ in range(self.config.rollouts_per_iteration):
            self.workers.collect_rollouts()
            self.events.record(SACEvents.policy_lag, value=self.workers.policy_lag)
        collected = time.perf_counter()
        for _ in range(self.config.num_batches_per_iter):
            batches = self.workers.sample_batches(self.config.batch_size, self.model.device)
            if batches:
                self.update(batches)
        self.workers.broadcast_updated_policy(self.policy)
        self.events.record(SACEvents.time_rollout, value=collected - start)
        self.events.record(SACEvents.time_update, value=time.perf_counter() - collected)
        self.events.record(SACEvents.buffer_size, value=self.workers.stored_transitions())
        self.events.record(SACEvents.actor_restarts, value=self.workers.take_restarts())
        for stats in torch.stack(self._update_stats).tolist() if self._update_stats else ():
            for event, value in zip(_STAT_EVENTS, stats, strict=True):
                self.events.record(event, value=value)
        self._update_stats = []
        self.events.end_update()

    # --- one gradient step -----------------------------------------------------------------

    def update(self, batches: Union[TransitionBatch[torch.Tensor], Mapping[StepKeyType, TransitionBatch]]) -> None:
        """One gradient step of the Q networks, the policies and the entropy coefficients.

        Args:
            batches: A batch of every sub-step key (a flat env's may be given alone); the
                sub-steps' losses are summed.
        """
        if isinstance(batches, TransitionBatch):
            batches = {next(iter(self.sub_steps)): batches}
        config = self.config
        alphas = self.log_entropy_coef.detach().exp()
        steps = [(self.sub_steps[key], batch) for key, batch in batches.items()]
        critic_loss = torch.zeros((), device=self.model.device)
        q_means = []
        for sub_step, batch in steps:
            alpha = alphas[sub_step.index]
            with torch.no_grad():
                target = self._q_target(batch, alpha, sub_step)
            q_first, q_second = self._q_taken(batch, sub_step)
            critic_loss = critic_loss + sum(
                torch.mean((q_first[head] - head_target) ** 2) + torch.mean((q_second[head] - head_target) ** 2)
                for head, head_target in target.items()
            )
            q_means.append(next(iter(q_first.values())).mean())
        critic_norm = self._step(self.critic_optimizer, critic_loss, "critic loss", self._working_critics)
        if critic_norm is None:
            return
        self.train_critics.requires_grad_(False)
        try:
            losses = [self._policy_loss(batch, alphas[sub_step.index], sub_step) for sub_step, batch in steps]
        finally:
            self.train_critics.requires_grad_(True)
        policy_loss = sum(loss for loss, _ in losses)
        entropies = torch.stack([entropy.detach() for _, entropy in losses])
        policy_norm = self._step(self.policy_optimizer, policy_loss, "policy loss", self._working_policy)
        if policy_norm is None:
            return
        index = self._index(tuple(sub_step.index for sub_step, _ in steps))
        if config.entropy_tuning:
            entropy_loss = (self.log_entropy_coef[index] * (entropies - self.target_entropies[index])).sum()
            self._step(self.entropy_optimizer, entropy_loss, "entropy coefficient loss", clip=False)
        else:
            entropy_loss = torch.zeros(())
        self.updates += 1
        if self.updates % config.target_update_interval == 0:
            soft_update(self.target_critics.parameters, self.critics.parameters, config.tau)
            self._working_targets.refresh()
        self._update_stats.append(
            torch.stack(
                [
                    policy_loss,
                    entropies.mean(),
                    torch.stack(q_means).mean(),
                    critic_loss,
                    alphas[index].mean(),
                    entropy_loss,
                    policy_norm,
                    critic_norm,
                ]
            ).detach()
        )

    def _index(self, indices: tuple[int, ...]) -> torch.Tensor:
        """The sub-step indices as a (cached) index tensor."""
        if indices not in self._indices:
            self._indices[indices] = torch.tensor(indices, device=self.model.device)
        return self._indices[indices]

    def _sub_step(self, sub_step: Optional[SubStep]) -> SubStep:
        return sub_step if sub_step is not None else next(iter(self.sub_steps.values()))

    def _policy_distribution(
        self, observation: dict[str, torch.Tensor], sub_step: SubStep
    ) -> DictProbabilityDistribution:
        """The sub-step policy's action distribution, built from float32 logits (also with bfloat16 networks)."""
        logits = self.train_policy.compute_logits_dict(observation, sub_step.actor_id)
        return self.train_policy.logits_dict_to_distribution(
            {head: value.float() for head, value in logits.items()}, sub_step.actor_id
        )

    def _q_target(
        self, batch: TransitionBatch[torch.Tensor], alpha: torch.Tensor, sub_step: Optional[SubStep] = None
    ) -> dict[str, torch.Tensor]:
        """``r + gamma * (1 - done) * V(s')``, the soft value from the minimum of the target Q networks.

        Args:
            batch: Transitions of the sub-step (``s'``: the sub-step's own next observation).
            alpha: The sub-step's entropy coefficient.
            sub_step: The sub-step (None: the only one of a flat env).

        Returns:
            ``[B]`` per discrete head (each head's Q values give its own soft value, with the
            joint entropy bonus), or under ``q_value`` for continuous actions.
        """
        sub_step = self._sub_step(sub_step)
        distribution = self._policy_distribution(batch.next_observations, sub_step)
        if sub_step.discrete:
            log_probs = discrete_log_probs(distribution)
            first, second = self.train_target_critics.q_values(batch.next_observations, None, sub_step.actor_id)
            bonus = -alpha * sum((log_p.exp() * log_p).sum(-1) for log_p in log_probs.values())
            values = {
                head: (log_p.exp() * torch.min(first[f"{head}_q_values"], second[f"{head}_q_values"])).sum(-1) + bonus
                for head, log_p in log_probs.items()
            }
        else:
            actions, log_prob = sample_with_log_prob(distribution)
            first, second = self.train_target_critics.q_values(batch.next_observations, actions, sub_step.actor_id)
            values = {"q_value": torch.min(first["q_value"], second["q_value"]) - alpha * log_prob}
        discount = self.config.gamma * (1.0 - batch.dones)
        return {head: batch.rewards + discount * value for head, value in values.items()}

    def _q_taken(
        self, batch: TransitionBatch[torch.Tensor], sub_step: SubStep
    ) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
        """Both critics' Q values of the batch's actions (per discrete head, or ``q_value``), each ``[B]``."""
        if sub_step.discrete:
            first, second = self.train_critics.q_values(batch.observations, None, sub_step.actor_id)
            return (
                q_of_taken_actions(first, batch.actions, sub_step.starts),
                q_of_taken_actions(second, batch.actions, sub_step.starts),
            )
        first, second = self.train_critics.q_values(batch.observations, batch.actions, sub_step.actor_id)
        return {"q_value": first["q_value"]}, {"q_value": second["q_value"]}

    def _policy_loss(
        self, batch: TransitionBatch[torch.Tensor], alpha: torch.Tensor, sub_step: SubStep
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``E[alpha * log pi(a|s) - min Q(s, a)]`` and the mean entropy (estimate) of the sub-step's policy."""
        distribution = self._policy_distribution(batch.observations, sub_step)
        if sub_step.discrete:
            log_probs = discrete_log_probs(distribution)
            first, second = self.train_critics.q_values(batch.observations, None, sub_step.actor_id)
            loss = sum(
                (log_p.exp() * (alpha * log_p - torch.min(first[f"{head}_q_values"], second[f"{head}_q_values"]))).sum(
                    -1
                )
                for head, log_p in log_probs.items()
            )
            entropy = -sum((log_p.exp() * log_p).sum(-1) for log_p in log_probs.values())
            return loss.mean(), entropy.mean()
        actions, log_prob = sample_with_log_prob(distribution)
        first, second = self.train_critics.q_values(batch.observations, actions, sub_step.actor_id)
        loss = alpha * log_prob - torch.min(first["q_value"], second["q_value"])
        return loss.mean(), -log_prob.mean()

    def _step(
        self,
        optimizer: Adam,
        loss: torch.Tensor,
        name: str,
        working: Optional[WorkingCopies] = None,
        clip: bool = True,
    ) -> Optional[torch.Tensor]:
        """Backward pass and one optimizer step; returns the gradient norm before clipping (0-d tensor).

        Args:
            optimizer: Updates the (master) parameters.
            loss: The loss to minimize.
            name: Names the loss in guard messages.
            working: The working copies the loss was computed with: their gradients move to the
                masters before the step, and the updated masters are copied back after it.
            clip: Clip the gradient norm to ``max_grad_norm``.

        Returns:
            None if the loss or the gradients were not finite and the step was skipped (``runner.non_finite=skip``).
        """
        optimizer.zero_grad()
        if not self.guard.loss_ok(loss, name):
            return None
        loss.backward()
        if working is not None:
            working.move_gradients()
        grads = [parameter.grad for parameter in optimizer.parameters if parameter.grad is not None]
        norm = torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads))) if grads else torch.zeros(())
        if not self.guard.gradients_ok(float(norm), self.model):
            optimizer.zero_grad()
            return None
        if clip and self.config.max_grad_norm > 0:
            torch._foreach_mul_(grads, torch.clamp(self.config.max_grad_norm / (norm + 1e-6), max=1.0))
        optimizer.step()
        if working is not None:
            working.refresh()
        return norm

    def _refresh_working_copies(self) -> None:
        """Copies the current policy and (target) Q network parameters into the working copies."""
        for working in (self._working_policy, self._working_critics, self._working_targets):
            working.refresh()

    # --- persistence -----------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Everything but the best model and the replay buffer's transitions, to resume training."""
        return {
            "critics": self.critics.state_dict(),
            "target_critics": self.target_critics.state_dict(),
            "policy_optimizer": self.policy_optimizer.state_dict(),
            "critic_optimizer": self.critic_optimizer.state_dict(),
            "entropy_optimizer": self.entropy_optimizer.state_dict(),
            "log_entropy_coef": self.log_entropy_coef.detach().clone(),
            "updates": torch.tensor(self.updates),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Loads what :meth:`state_dict` returned (for the same model architecture)."""
        self.critics.load_state_dict(state["critics"])
        self.target_critics.load_state_dict(state["target_critics"])
        self.policy_optimizer.load_state_dict(state["policy_optimizer"])
        self.critic_optimizer.load_state_dict(state["critic_optimizer"])
        self.entropy_optimizer.load_state_dict(state["entropy_optimizer"])
        with torch.no_grad():
            self.log_entropy_coef.copy_(state["log_entropy_coef"])
        self.updates = int(state["updates"])
        self._refresh_working_copies()

    def extra_state_dicts(self) -> dict[str, Any]:
        """The Q networks, their targets, the critic and entropy optimizers and the entropy coefficient."""
        return {"sac": self.state_dict()}

    def load_extra_state_dicts(self, state_dicts: Mapping[str, Any]) -> None:
        """Restores what :meth:`extra_state_dicts` saved."""
        self.load_state_dict(state_dicts["sac"])
