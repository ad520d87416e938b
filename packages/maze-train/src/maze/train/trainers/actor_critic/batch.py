"""A rollout prepared for actor-critic updates: flat per-slot samples with advantages and targets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import torch
from maze.env.core.actor import ActorID
from maze.env.trajectory_recording.spaces_records import SpacesRecord, StructuredSpacesRecord
from maze.perception.agent.policy_output import PolicyOutput
from maze.perception.agent.state_critic_io import StateCriticInput
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.train.returns import compute_gae
from maze.train.rollout.collector import RolloutBatch

__all__ = [
    "ActorCriticBatch",
    "bootstrap_values",
    "interleave",
    "per_slot",
    "prepare_actor_critic_batch",
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
    rollout: RolloutBatch, model: TorchActorCritic, gamma: float, gae_lambda: float
) -> ActorCriticBatch:
    """Computes old log-probabilities, values, advantages and value targets of a rollout in one pass.

    The env step's discount ``gamma`` applies at the last slot of every env step; between
    the slots of one env step nothing is discounted. Truncated episodes bootstrap the
    value of the observation they were cut off at (valued as slot 0's actor would see it).

    Args:
        rollout: The collected rollout.
        model: The actor-critic whose policy collected it.
        gamma: Discount per env step.
        gae_lambda: GAE lambda (1: bootstrapped discounted returns).

    Returns:
        The batch for the update epochs.
    """
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
