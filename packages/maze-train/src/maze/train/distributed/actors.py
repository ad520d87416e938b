"""Distributed actors: roll out a (possibly slightly stale) copy of the learner's policy and hand back tagged outputs.

:class:`DistributedActors` is the seam between a learner (IMPALA) and wherever its actors
run: in this process (:class:`SequentialDistributedActors`), in worker processes
(:class:`~maze.train.distributed.subproc_actors.SubprocDistributedActors`), or later on a
cluster. Every :class:`ActorOutput` carries the policy version it was produced with and the
behaviour log-probabilities of its actions, which the learner's off-policy correction needs.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np
import torch
from maze.env.log_stats.aggregator import EpisodeStatsBatch
from maze.env.vector.sequential import SequentialVectorEnv
from maze.train.core.actor_critic.batch import rollout_samples, spaces_record
from maze.train.guards import NonFiniteGuard
from maze.train.rollout.collector import RolloutBatch, RolloutCollector, SubStepBatch

__all__ = [
    "ActorOutput",
    "DistributedActors",
    "SequentialDistributedActors",
    "act_once",
    "actor_collector",
    "concatenate_outputs",
]


@dataclass
class ActorOutput:
    """One rollout of one actor.

    Attributes:
        rollout: ``T`` env steps of the actor's ``N`` envs.
        behaviour_log_probs: Per slot, ``[T, N]`` log-probabilities of the actions under the acting policy.
        policy_version: The version of the policy weights the rollout was produced with.
        actor: Index of the actor.
        rollout_seconds: Seconds the rollout took in the actor.
        episode_stats: Statistics of the episodes that ended in the rollout.
        incarnation: The id of the actor instance that produced it, where actors are restarted (Ray); a new id
            means that the actor's envs started over.
        node: The id of the Ray node the actor ran on (Ray only).
    """

    rollout: RolloutBatch
    behaviour_log_probs: list[np.ndarray]
    policy_version: int
    actor: int
    rollout_seconds: float
    episode_stats: list[EpisodeStatsBatch] = field(default_factory=list)
    incarnation: Optional[str] = None
    node: Optional[str] = None


def actor_collector(
    env_factory: Callable[[], Any], n_rollout_steps: int, seeds: list[Optional[int]]
) -> RolloutCollector:
    """The collector of one actor: ``len(seeds)`` envs stepped side by side in the actor's process.

    Its guard hands non-finite observations on with the rollout: the learner's guard, which
    knows the epoch, the env and ``runner.non_finite``, stops or skips the update.
    """
    collector = RolloutCollector(SequentialVectorEnv([env_factory] * len(seeds)), n_rollout_steps, seeds)
    collector.guard = NonFiniteGuard(deferred=True)
    return collector


@torch.no_grad()
def act_once(
    collector: RolloutCollector, policy: Any, policy_version: int, actor: int, behaviour_log_probs: bool = True
) -> ActorOutput:
    """Collects one rollout with ``policy`` (a TorchPolicy) and computes its behaviour log-probabilities.

    Args:
        collector: The actor's collector (its envs continue where the last rollout stopped).
        policy: Acts in the envs.
        policy_version: The version of the policy's weights, tagged onto the output.
        actor: The actor's index, tagged onto the output.
        behaviour_log_probs: Compute them (off-policy corrections need them; replay-buffer
            learners such as SAC do not: the output then has an empty list).
    """
    start = time.perf_counter()
    rollout = collector.collect(policy)
    log_probs: list[torch.Tensor] = []
    if behaviour_log_probs:
        actor_ids, observations, actions = rollout_samples(rollout, policy.device)
        record = spaces_record(actor_ids, observations, actions)
        log_probs = policy.compute_policy_output(record).log_probs(record.actions)
    shape = (rollout.n_steps, rollout.n_envs)
    return ActorOutput(
        rollout=rollout,
        behaviour_log_probs=[log_prob.cpu().numpy().reshape(shape) for log_prob in log_probs],
        policy_version=policy_version,
        actor=actor,
        rollout_seconds=time.perf_counter() - start,
        episode_stats=list(collector.env.call("take_episode_stats")),
    )


def concatenate_outputs(outputs: list[ActorOutput]) -> tuple[RolloutBatch, list[np.ndarray]]:
    """Joins rollouts of equal length and slots along the env axis.

    Returns:
        The joined rollout (``N`` = all envs of all outputs) and per slot the ``[T, N]``
        behaviour log-probabilities.
    """
    rollouts = [output.rollout for output in outputs]
    first = rollouts[0]
    offsets = np.cumsum([0] + [rollout.n_envs for rollout in rollouts])
    substeps = [
        SubStepBatch(
            actor_id=slot.actor_id,
            observations={
                key: np.concatenate([r.substeps[k].observations[key] for r in rollouts], axis=1)
                for key in slot.observations
            },
            actions={
                key: np.concatenate([r.substeps[k].actions[key] for r in rollouts], axis=1) for key in slot.actions
            },
        )
        for k, slot in enumerate(first.substeps)
    ]
    joined = RolloutBatch(
        substeps=substeps,
        rewards=np.concatenate([r.rewards for r in rollouts], axis=1),
        terminated=np.concatenate([r.terminated for r in rollouts], axis=1),
        truncated=np.concatenate([r.truncated for r in rollouts], axis=1),
        final_observations=[
            (call, int(offset) + env, observation)
            for r, offset in zip(rollouts, offsets, strict=False)
            for call, env, observation in r.final_observations
        ],
        next_observation={
            key: np.concatenate([r.next_observation[key] for r in rollouts]) for key in first.next_observation
        },
        next_actor_id=first.next_actor_id,
        non_finite_observation=next(
            (
                r.non_finite_observation.shifted(int(offset))
                for r, offset in zip(rollouts, offsets, strict=False)
                if r.non_finite_observation is not None
            ),
            None,
        ),
    )
    log_probs = [
        np.concatenate([output.behaviour_log_probs[k] for output in outputs], axis=1) for k in range(first.n_slots)
    ]
    return joined, log_probs


class DistributedActors(ABC):
    """Actors that roll out the learner's policy; the learner pulls batches of their outputs.

    Args:
        env_factory: Builds one env of an actor (picklable for worker processes).
        policy: The learner's policy (a TorchPolicy); actors act with copies of it.
        n_rollout_steps: ``T``, env steps per actor rollout.
        num_actors: Number of actors.
        actors_batch_size: Actor outputs per learner batch.
        seeds: One seed per env, ``num_actors * envs_per_actor`` (None: unseeded).
        envs_per_actor: Envs each actor steps side by side (one batched policy call per step).
        behaviour_log_probs: Compute the behaviour log-probabilities of every rollout (see :func:`act_once`).
    """

    def __init__(
        self,
        env_factory: Callable[[], Any],
        policy: Any,
        n_rollout_steps: int,
        num_actors: int,
        actors_batch_size: int,
        seeds: Optional[list[int]] = None,
        envs_per_actor: int = 1,
        behaviour_log_probs: bool = True,
    ) -> None:
        self.env_factory = env_factory
        self.policy = policy
        self.n_rollout_steps = n_rollout_steps
        self.num_actors = num_actors
        self.actors_batch_size = actors_batch_size
        self.envs_per_actor = envs_per_actor
        self.behaviour_log_probs = behaviour_log_probs
        self.seeds = seeds if seeds is not None else [None] * (num_actors * envs_per_actor)
        self.policy_version = 0
        """Incremented by every :meth:`broadcast_updated_policy`."""

    def actor_seeds(self, actor: int) -> list[Optional[int]]:
        """The seeds of the envs of ``actor``."""
        return list(self.seeds[actor * self.envs_per_actor : (actor + 1) * self.envs_per_actor])

    @abstractmethod
    def start(self) -> None:
        """Starts the actors (they act with the policy's current weights, version 0)."""

    @abstractmethod
    def stop(self) -> None:
        """Stops the actors and releases their envs; safe to call more than once."""

    @abstractmethod
    def broadcast_updated_policy(self, policy: Any) -> None:
        """Makes the learner's updated weights of ``policy`` the actors' weights (a new version)."""

    @abstractmethod
    def collect_outputs(self) -> list[ActorOutput]:
        """Blocks until ``actors_batch_size`` outputs are there and returns them."""

    def queue_size(self) -> int:
        """Outputs waiting for the learner."""
        return 0

    def take_restarts(self) -> int:
        """Actors restarted since the last call (after their process or node died); 0 where actors are not restarted."""
        return 0

    def degraded_notice(self) -> str:
        """A warning while some actors are lost and training goes on without them (empty while all deliver)."""
        return ""


class SequentialDistributedActors(DistributedActors):
    """Actors in this process, stepped in turn with the learner's own policy (always the newest weights).

    For debugging and ``runner=dev``: no process boundary and no policy lag. See
    :class:`DistributedActors` for the arguments.
    """

    def start(self) -> None:
        """Builds the collector of every actor."""
        self._collectors = [
            actor_collector(self.env_factory, self.n_rollout_steps, self.actor_seeds(actor))
            for actor in range(self.num_actors)
        ]
        self._next = 0

    def stop(self) -> None:
        """Closes the actors' envs."""
        for collector in getattr(self, "_collectors", []):
            collector.env.close()
        self._collectors = []

    def broadcast_updated_policy(self, policy: Any) -> None:
        """The actors share the learner's policy; only the version advances."""
        self.policy_version += 1

    def collect_outputs(self) -> list[ActorOutput]:
        """One rollout of each of the next ``actors_batch_size`` actors (round robin)."""
        outputs = []
        for _ in range(self.actors_batch_size):
            actor = self._next
            self._next = (self._next + 1) % self.num_actors
            outputs.append(
                act_once(self._collectors[actor], self.policy, self.policy_version, actor, self.behaviour_log_probs)
            )
        return outputs
