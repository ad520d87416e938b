"""A rollout prepared for actor-critic updates: flat per-slot samples with advantages and targets.

Rollouts of envs with dynamic agents (:class:`~maze.train.rollout.actors.ActorRollout`)
become an :class:`ActorSamplesBatch`: one group of rows per policy network instead of one
per slot, with advantages computed along each actor's own trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

import numpy as np
import torch
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording.spaces_records import SpacesRecord, StructuredSpacesRecord
from maze.perception.agent.policy_output import PolicyOutput
from maze.perception.agent.state_critic_io import StateCriticInput
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.perception.agent.torch_state_critic import TorchDeltaStateCritic
from maze.train.returns import compute_gae, compute_linked_gae
from maze.train.rollout.actors import ActorRollout, ActorSample, TransitionEnd, group_by_network
from maze.train.rollout.collector import RolloutBatch

__all__ = [
    "ActorCriticBatch",
    "ActorSamplesBatch",
    "bootstrap_values",
    "interleave",
    "per_slot",
    "prepare_actor_critic_batch",
    "prepare_actor_samples_batch",
    "rollout_samples",
    "spaces_record",
]


@dataclass
class ActorCriticBatch:
    """The samples of a rollout, one row per env step and env (``M = T * N`` rows), per slot.

    Row ``t * N + n`` of every slot belongs to env step ``t`` of env ``n``, so rows of
    different slots line up (critics of later sub-steps may read earlier ones).

    Attributes:
        actor_ids: The actor of every slot.
        observations: Per slot, observation key -> ``[M, *shape]`` numpy arrays.
        actions: Per slot, action key -> ``[M, *shape]`` tensors.
        old_log_probs: Per slot, ``[M]`` log-probabilities of the actions when they were taken.
        advantages: Per slot, ``[M]`` advantages.
        value_targets: Per slot, ``[M]`` targets of the critic.
        old_values: Per slot, ``[M]`` values when the rollout was taken.
    """

    actor_ids: list[ActorID]
    observations: list[dict[str, np.ndarray]]
    actions: list[dict[str, torch.Tensor]]
    old_log_probs: list[torch.Tensor]
    advantages: list[torch.Tensor]
    value_targets: list[torch.Tensor]
    old_values: list[torch.Tensor]

    @property
    def n_rows(self) -> int:
        """``M``, the rows of every slot."""
        return int(self.advantages[0].shape[0])

    def record(self, rows: Optional[torch.Tensor] = None) -> StructuredSpacesRecord:
        """The observations and actions (all rows, or ``rows``) as a batched structured record."""
        if rows is None:
            return spaces_record(self.actor_ids, self.observations, self.actions)
        indices = rows.numpy()
        return spaces_record(
            self.actor_ids,
            [_take(observations, indices) for observations in self.observations],
            [_take(actions, rows) for actions in self.actions],
        )

    def rows(self, field: str, rows: Optional[torch.Tensor] = None) -> list[torch.Tensor]:
        """One of the per-slot ``[M]`` tensors (``advantages``, ...), all rows or ``rows``."""
        tensors = getattr(self, field)
        return tensors if rows is None else [tensor[rows] for tensor in tensors]


def spaces_record(
    actor_ids: list[ActorID], observations: list[dict[str, Any]], actions: list[dict[str, Any]]
) -> StructuredSpacesRecord:
    """One sub-step record per slot (batched observations and actions, no rewards)."""
    return StructuredSpacesRecord(
        [
            SpacesRecord(actor_id=actor_id, observation=observation, action=action, reward=None)
            for actor_id, observation, action in zip(actor_ids, observations, actions, strict=True)
        ]
    )


def _take(arrays: dict[str, Any], rows: Any) -> dict[str, Any]:
    return {key: value[rows] for key, value in arrays.items()}


def _flat(array: np.ndarray) -> np.ndarray:
    """``[T, N, *shape]`` -> ``[T * N, *shape]`` (a view)."""
    return array.reshape(-1, *array.shape[2:])


def interleave(slots: list[np.ndarray]) -> np.ndarray:
    """K arrays ``[T, N]`` -> the timeline ``[T * K, N]`` (row ``t * K + k`` from slot ``k``)."""
    stacked = np.stack(slots, axis=1)
    return stacked.reshape(-1, stacked.shape[-1])


def rollout_samples(
    rollout: RolloutBatch, device: torch.device
) -> tuple[list[ActorID], list[dict[str, np.ndarray]], list[dict[str, torch.Tensor]]]:
    """Per slot the actor, the flat ``[T * N, ...]`` observations and the actions as tensors on ``device``."""
    observations = [{key: _flat(value) for key, value in slot.observations.items()} for slot in rollout.substeps]
    actions = [
        {key: torch.from_numpy(_flat(value)).to(device) for key, value in slot.actions.items()}
        for slot in rollout.substeps
    ]
    return [slot.actor_id for slot in rollout.substeps], observations, actions


def per_slot(timeline: np.ndarray, n_slots: int, device: torch.device) -> list[torch.Tensor]:
    """The ``[T * K, N]`` timeline split into ``K`` per-slot ``[T * N]`` tensors (row ``t * N + n``)."""
    return [
        torch.from_numpy(np.ascontiguousarray(timeline[slot::n_slots]).reshape(-1)).to(device)
        for slot in range(n_slots)
    ]


@torch.no_grad()
def bootstrap_values(rollout: RolloutBatch, model: TorchActorCritic, values: np.ndarray) -> np.ndarray:
    """``[T * K, N]`` values of the observations that follow truncations and the rollout's end."""
    next_values = np.zeros_like(values)
    finals = [observation for _, _, observation in rollout.final_observations]
    merged = {
        key: np.concatenate([value, np.stack([final[key] for final in finals])]) if finals else value
        for key, value in rollout.next_observation.items()
    }
    bootstrap = _state_values(model, merged, rollout.next_actor_id)
    next_values[-1] = bootstrap[: rollout.n_envs]
    for row, (call, env, _) in enumerate(rollout.final_observations):
        next_values[call, env] = bootstrap[rollout.n_envs + row]
    return next_values


def _state_values(model: TorchActorCritic, observation: dict[str, np.ndarray], actor_id: ActorID) -> np.ndarray:
    """``[B]`` values of a batch of observations of one actor (with the policy's shared embeddings)."""
    output = model.policy.compute_substep_policy_output(observation, actor_id)
    critic_input = StateCriticInput.build([observation], [actor_id], PolicyOutput([output]))
    return model.critic.predict_values(critic_input)[0].detached_values.cpu().numpy()


@torch.no_grad()
def prepare_actor_critic_batch(
    rollout: Union[RolloutBatch, ActorRollout], model: TorchActorCritic, gamma: float, gae_lambda: float
) -> ActorCriticBatch:
    """Computes old log-probabilities, values, advantages and value targets of a rollout in one pass.

    The env step's discount ``gamma`` applies at the last slot of every env step; between
    the slots of one env step nothing is discounted. Truncated episodes bootstrap the
    value of the observation they were cut off at (valued as slot 0's actor would see it).
    An :class:`ActorRollout` is prepared by :func:`prepare_actor_samples_batch`.

    Args:
        rollout: The collected rollout.
        model: The actor-critic whose policy collected it.
        gamma: Discount per env step.
        gae_lambda: GAE lambda (1: bootstrapped discounted returns).

    Returns:
        The batch for the update epochs.
    """
    if isinstance(rollout, ActorRollout):
        return prepare_actor_samples_batch(rollout, model, gamma, gae_lambda)
    device = model.device
    actor_ids, observations, actions = rollout_samples(rollout, device)
    record = spaces_record(actor_ids, observations, actions)
    policy_output, critic_output = model.compute_actor_critic_output(record)
    log_probs = policy_output.log_probs(record.actions)
    shape = (rollout.n_steps, rollout.n_envs)
    slot_values = [values.cpu().numpy().reshape(shape) for values in critic_output.detached_values]
    values = interleave(slot_values)
    next_values = bootstrap_values(rollout, model, values)
    discount = np.where(rollout.env_step_ends(), gamma, 1.0)
    advantages, targets = compute_gae(
        rollout.rewards, values, next_values, rollout.terminated, rollout.truncated, discount, gae_lambda
    )
    return ActorCriticBatch(
        actor_ids=actor_ids,
        observations=observations,
        actions=actions,
        old_log_probs=[log_prob.detach() for log_prob in log_probs],
        advantages=per_slot(advantages, rollout.n_slots, device),
        value_targets=per_slot(targets, rollout.n_slots, device),
        old_values=[torch.from_numpy(value.reshape(-1)).to(device) for value in slot_values],
    )


@dataclass
class ActorSamplesBatch(ActorCriticBatch):
    """The trainable samples of an :class:`ActorRollout`, one group of rows per policy network.

    The lists hold one entry per group (instead of per slot); group ``g`` has ``M_g`` rows.
    A selection of ``rows`` numbers all samples ``0 .. sum(M_g) - 1``, group after group,
    and keeps only the groups it hits (a minibatch may miss a small group).
    """

    @property
    def n_rows(self) -> int:
        """All rows of all groups."""
        return sum(int(advantages.shape[0]) for advantages in self.advantages)

    def _split(self, rows: torch.Tensor) -> list[tuple[int, torch.Tensor]]:
        """``(group, rows within the group)`` of every group that ``rows`` hits."""
        parts, start = [], 0
        for group, advantages in enumerate(self.advantages):
            end = start + int(advantages.shape[0])
            hit = rows[(rows >= start) & (rows < end)] - start
            if hit.numel():
                parts.append((group, hit))
            start = end
        return parts

    def record(self, rows: Optional[torch.Tensor] = None) -> StructuredSpacesRecord:
        """The observations and actions (all rows, or ``rows``) as a batched structured record."""
        if rows is None:
            return super().record()
        parts = self._split(rows)
        return spaces_record(
            [self.actor_ids[group] for group, _ in parts],
            [_take(self.observations[group], hit.numpy()) for group, hit in parts],
            [_take(self.actions[group], hit) for group, hit in parts],
        )

    def rows(self, field: str, rows: Optional[torch.Tensor] = None) -> list[torch.Tensor]:
        """One of the per-group tensors (``advantages``, ...), all rows or the groups ``rows`` hits."""
        tensors = getattr(self, field)
        return tensors if rows is None else [tensors[group][hit] for group, hit in self._split(rows)]


@torch.no_grad()
def prepare_actor_samples_batch(
    rollout: ActorRollout, model: TorchActorCritic, gamma: float, gae_lambda: float
) -> ActorSamplesBatch:
    """Values, log-probabilities, advantages and targets of a rollout with dynamic agents.

    Each actor's transitions form its own trajectory: ``gamma`` discounts per decision of
    the actor, a transition bootstraps the value of the actor's next decision, nothing
    after the actor is done or the episode terminated, and the actor's own value where
    the episode was truncated. Transitions still open at the end of the rollout are valued
    (their predecessors bootstrap them) but trained on in the next rollout.

    Args:
        rollout: The collected rollout.
        model: The actor-critic whose policy collected it.
        gamma: Discount per decision of an actor.
        gae_lambda: GAE lambda.

    Returns:
        The batch of the closed transitions, one group per policy network (in the order of
        the policy's networks).
    """
    _check_critic(model)
    device = model.device
    samples = rollout.samples
    if all(sample.end == TransitionEnd.OPEN for sample in samples):
        raise ConfigurationError(
            f"no actor acted twice, was done or saw its episode end within a rollout of {rollout.rewards.shape[0]} "
            "sub-steps, so there is nothing to train on; raise algorithm.n_rollout_steps"
        )
    by_network = group_by_network(model.policy, [sample.actor_id for sample in samples])
    order = {key: position for position, key in enumerate(model.policy.networks)}  # stable group numbers
    groups = [by_network[key] for key in sorted(by_network, key=lambda key: order.get(key, len(order)))]
    actor_ids = [samples[indices[0]].actor_id for indices in groups]
    observations = [_stack([samples[index].observation for index in indices]) for indices in groups]
    actions = [
        {key: torch.from_numpy(value).to(device) for key, value in _stack([samples[i].action for i in indices]).items()}
        for indices in groups
    ]
    record = spaces_record(actor_ids, observations, actions)
    policy_output, critic_output = model.compute_actor_critic_output(record)
    values = np.empty(len(samples), dtype=np.float64)
    for indices, group_values in zip(groups, critic_output.detached_values, strict=True):
        values[indices] = group_values.cpu().numpy()
    advantages, targets = compute_linked_gae(*_transitions(samples, values), gamma, gae_lambda)
    closed = np.array([sample.end != TransitionEnd.OPEN for sample in samples])
    keep = [np.asarray(indices)[closed[indices]] for indices in groups]
    rows = [torch.from_numpy(np.flatnonzero(closed[indices])).to(device) for indices in groups]
    batch = ActorSamplesBatch(
        actor_ids=actor_ids,
        observations=[_take(group, local.cpu().numpy()) for group, local in zip(observations, rows, strict=True)],
        actions=[_take(group, local) for group, local in zip(actions, rows, strict=True)],
        old_log_probs=[
            log_prob.detach()[local] for log_prob, local in zip(policy_output.log_probs(actions), rows, strict=True)
        ],
        advantages=[torch.from_numpy(advantages[indices]).to(device) for indices in keep],
        value_targets=[torch.from_numpy(targets[indices]).to(device) for indices in keep],
        old_values=[torch.from_numpy(values[indices].astype(np.float32)).to(device) for indices in keep],
    )
    empty = [group for group, indices in enumerate(keep) if not len(indices)]
    return _without_groups(batch, empty) if empty else batch


def _check_critic(model: TorchActorCritic) -> None:
    """Critics that value all sub-steps of an env step together cannot value single actors."""
    if getattr(model.critic, "stack_observations", False) or isinstance(model.critic, TorchDeltaStateCritic):
        raise ConfigurationError(
            f"{type(model.critic).__name__} values the sub-steps of an env step together, which envs with dynamic "
            "agents do not have; use a critic that values each actor's observation on its own (e.g. "
            "StepStateCriticComposer, or SharedStateCriticComposer with stack_observations: false)"
        )


def _stack(dicts: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    return {key: np.stack([item[key] for item in dicts]) for key in dicts[0]}


def _transitions(samples: list[ActorSample], values: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(rewards, values, next_values, next_index)`` of the samples for :func:`compute_linked_gae`."""
    position = {id(sample): index for index, sample in enumerate(samples)}
    rewards = np.array([sample.reward for sample in samples], dtype=np.float64)
    next_values = np.zeros(len(samples))
    next_index = np.full(len(samples), -1)
    for index, sample in enumerate(samples):
        if sample.end == TransitionEnd.NEXT:
            successor = position[id(sample.next)]
            next_values[index] = values[successor]
            if sample.next.end != TransitionEnd.OPEN:
                next_index[index] = successor
        elif sample.end == TransitionEnd.TRUNCATED:
            next_values[index] = values[index]
    return rewards, values, next_values, next_index


def _without_groups(batch: ActorSamplesBatch, groups: list[int]) -> ActorSamplesBatch:
    """The batch without the (empty) ``groups``."""
    kept = [group for group in range(len(batch.actor_ids)) if group not in groups]
    fields = ("actor_ids", "observations", "actions", "old_log_probs", "advantages", "value_targets", "old_values")
    return ActorSamplesBatch(**{name: [getattr(batch, name)[group] for group in kept] for name in fields})
