"""RolloutGenerator: roll a policy out in an env and get the trajectory as a batched spaces record.

The documented entry point for "step this policy for ``n`` steps and give me what it saw
and did"::

    generator = RolloutGenerator(SequentialVectorEnv([make_env] * 2))
    trajectory = generator.rollout(policy, n_steps=100)
    len(trajectory)                                     # 100 env steps
    trajectory.step_records[0].observations[0]["observation"].shape  # (2, 4): batch of 2 envs

It steps the env with the same :class:`~maze.train.rollout.collector.RolloutCollector` the
actor-critic trainers use and hands the rollout over as a
:class:`~maze.env.trajectory_recording.spaces_records.SpacesTrajectoryRecord` (the record
type of datasets, imitation learning and ``TorchPolicy.compute_policy_output``).
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

import numpy as np
import torch
from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording.spaces_records import SpacesRecord, SpacesTrajectoryRecord, StructuredSpacesRecord
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.train.rollout.collector import RolloutBatch, RolloutCollector

__all__ = ["RolloutGenerator"]


class RolloutGenerator:
    """Steps a policy in a (vector) env and records raw observations and actions per sub-step.

    The record of one rollout of ``T`` env steps over ``N`` envs holds ``T`` structured
    records (one per env step) of one :class:`SpacesRecord` per sub-step, whose entries are
    batched over the envs: observations and actions ``{key: [N, *shape]}``, ``reward``,
    ``terminated`` and ``truncated`` arrays ``[N]`` (read the flags per env: an env whose
    episode ends is reset within the same step, so the next record shows its new episode),
    and with ``record_logits`` the policy's ``logits`` ``{head: [N, *logits_shape]}``.
    Consecutive rollouts continue the envs where the last one stopped.

    Args:
        env: A structured vector env, or a single structured env (stepped as a vector env of
            one, so every entry has a batch dimension of 1).
        record_logits: Also record the action logits of the policy (it needs a
            ``compute_logits_dict``, as :class:`~maze.perception.agent.torch_policy.TorchPolicy` has).
        seeds: Seeds of the first reset, one per env (None: the envs' own randomness).
    """

    def __init__(self, env: Any, record_logits: bool = False, seeds: Optional[list[int]] = None) -> None:
        self.env: StructuredVectorEnv = (
            env if isinstance(env, StructuredVectorEnv) else SequentialVectorEnv([lambda: env])
        )
        self.record_logits = record_logits
        self._collector = RolloutCollector(self.env, n_steps=1, seeds=seeds)

    def rollout(self, policy: Any, n_steps: int) -> SpacesTrajectoryRecord:
        """Runs ``n_steps`` env steps in every env with ``policy`` sampling the actions.

        Args:
            policy: A structured policy whose ``compute_action(observation, actor_id=...)``
                acts on batched observations ``[N, ...]`` (TorchPolicy, RandomPolicy, ...).
            n_steps: ``T``, env steps per env.

        Returns:
            The batched trajectory of ``T`` env steps.

        Raises:
            ConfigurationError: ``n_steps`` is below 1, or logits are requested from a policy without logits.
        """
        if n_steps < 1:
            raise ConfigurationError(f"RolloutGenerator.rollout: n_steps must be at least 1, got {n_steps}")
        if self.record_logits and not hasattr(policy, "compute_logits_dict"):
            raise ConfigurationError(
                f"record_logits=True needs a policy with compute_logits_dict (e.g. a TorchPolicy); "
                f"{type(policy).__name__} has none: use record_logits=False"
            )
        self._collector.n_steps = n_steps
        batch = self._collector.collect(policy)
        logits = _logits(policy, batch) if self.record_logits else None
        return _trajectory(batch, logits)

    @property
    def env_steps(self) -> int:
        """Env steps of all envs taken so far."""
        return self._collector.env_steps

    def close(self) -> None:
        """Closes the env."""
        self.env.close()


def _logits(policy: Any, batch: RolloutBatch) -> list[dict[str, np.ndarray]]:
    """Per slot, the policy's logits ``{head: [T, N, *logits_shape]}`` of the rollout's observations."""
    per_slot = []
    with torch.inference_mode():
        for slot in batch.substeps:
            flat = {key: value.reshape(-1, *value.shape[2:]) for key, value in slot.observations.items()}
            logits = policy.compute_logits_dict(flat, actor_id=slot.actor_id)
            per_slot.append(
                {
                    head: value.cpu().numpy().reshape(batch.n_steps, batch.n_envs, *value.shape[1:])
                    for head, value in logits.items()
                }
            )
    return per_slot


def _trajectory(batch: RolloutBatch, logits: Optional[list[dict[str, np.ndarray]]]) -> SpacesTrajectoryRecord:
    """The rollout as ``T`` structured records of ``K`` batched sub-step records."""
    trajectory = SpacesTrajectoryRecord(id=str(uuid.uuid4()))
    for t in range(batch.n_steps):
        step = StructuredSpacesRecord()
        for k, slot in enumerate(batch.substeps):
            call = t * batch.n_slots + k
            step.append(
                SpacesRecord(
                    actor_id=slot.actor_id,
                    observation={key: value[t] for key, value in slot.observations.items()},
                    action={key: value[t] for key, value in slot.actions.items()},
                    reward=batch.rewards[call],
                    terminated=batch.terminated[call],
                    truncated=batch.truncated[call],
                    logits=None if logits is None else {head: value[t] for head, value in logits[k].items()},
                )
            )
        trajectory.append(step)
    return trajectory
