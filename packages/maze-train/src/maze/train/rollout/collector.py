"""Collects on-policy rollouts from a structured vector env into preallocated arrays.

An **env step** of a structured env is one turn of every actor: ``K`` sub-steps, with
``K = sum(agent_counts_dict.values())`` (1 for flat envs, 2 for a select-then-cut env, the
number of agents for a turn-based multi-agent env). A rollout of ``T`` env steps over
``N`` envs is ``T * K`` calls of the vector env's ``step``; the ``k``-th call of every env
step is **slot** ``k``. Per slot the collector keeps the observations and actions as
``[T, N, ...]`` arrays; rewards and episode-end flags of all calls form one interleaved
timeline ``[T * K, N]`` (call ``t * K + k``), the order in which the actors acted.

The policy acts with one batched forward pass per call. Values, log-probabilities and
entropies are not computed here: trainers compute them for the whole rollout at once.

Envs with **dynamic agents** (a ``-1`` in ``agent_counts_dict``: actors created and finished
during an episode, or acting in a varying order) have no fixed slots. For them the
collector records per actor trajectory instead and returns an
:class:`~maze.train.rollout.actors.ActorRollout` (see :mod:`maze.train.rollout.actors`);
then ``T`` counts sub-steps (vector-env calls) and every call counts as one env step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

import numpy as np
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.train.guards import NonFiniteGuard, NonFiniteObservation
from maze.train.rollout.actors import ActorRollout, DynamicAgentsCollection, has_dynamic_agents

__all__ = ["RolloutBatch", "RolloutCollector", "SubStepBatch"]


@dataclass
class SubStepBatch:
    """Observations and actions of one slot of every env step of a rollout.

    Attributes:
        actor_id: The actor of this slot (in multi-agent envs the first env's; all envs
            share its sub-step key).
        observations: Observation key -> ``[T, N, *shape]``.
        actions: Action key -> ``[T, N, *shape]``.
    """

    actor_id: ActorID
    observations: dict[str, np.ndarray]
    actions: dict[str, np.ndarray]


@dataclass
class RolloutBatch:
    """A rollout of ``T`` env steps of ``N`` envs with ``K`` slots per env step.

    Attributes:
        substeps: One :class:`SubStepBatch` per slot, in acting order.
        rewards: ``[T * K, N]`` reward of every vector-env call (interleaved timeline).
        terminated: ``[T * K, N]`` bool.
        truncated: ``[T * K, N]`` bool.
        final_observations: ``(call index, env index, observation)`` of every truncated
            episode: the observation it was cut off at, for bootstrapping.
        next_observation: Observation key -> ``[N, *shape]``, what the envs show after the rollout.
        next_actor_id: The actor that acts on ``next_observation`` (slot 0's actor).
        non_finite_observation: The first non-finite observation of the rollout (the policy
            acted on it with such values set to 0; see :mod:`maze.train.guards`), or None.
    """

    substeps: list[SubStepBatch]
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    final_observations: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    next_observation: dict[str, np.ndarray] = field(default_factory=dict)
    next_actor_id: Optional[ActorID] = None
    non_finite_observation: Optional[NonFiniteObservation] = None

    @property
    def n_slots(self) -> int:
        """``K``, the sub-steps per env step."""
        return len(self.substeps)

    @property
    def n_steps(self) -> int:
        """``T``, the env steps per env."""
        return self.rewards.shape[0] // self.n_slots

    @property
    def n_envs(self) -> int:
        """``N``, the envs."""
        return self.rewards.shape[1]

    def env_step_ends(self) -> np.ndarray:
        """``[T * K]`` bool: the call ends an env step (the last slot), where time is discounted."""
        return (np.arange(self.rewards.shape[0]) % self.n_slots) == self.n_slots - 1


class RolloutCollector:
    """Steps a structured vector env with a policy and records fixed-length rollouts.

    Consecutive :meth:`collect` calls continue the envs where the last rollout stopped.

    Args:
        env: The vector env (its envs end episodes only after the last slot of an env
            step, or all at the same slot, so the envs stay at the same sub-step; envs
            with dynamic agents have no such restriction).
        n_steps: ``T``, env steps per env and rollout (sub-steps for envs with dynamic agents).
        seeds: Seeds of the first reset (one per env), or None.
    """

    def __init__(self, env: StructuredVectorEnv, n_steps: int, seeds: Optional[list[int]] = None) -> None:
        if n_steps < 1:
            raise ConfigurationError(f"n_rollout_steps must be at least 1, got {n_steps}")
        self.env = env
        self.n_steps = n_steps
        self._dynamic = DynamicAgentsCollection(env, n_steps, seeds) if has_dynamic_agents(env) else None
        self.n_slots = 1 if self._dynamic is not None else sum(env.agent_counts_dict.values())
        """``K``, sub-steps per env step (1 with dynamic agents, where every call counts as an env step)."""
        self._seeds = seeds
        self._observation: Optional[dict[str, np.ndarray]] = None
        self._substeps: list[SubStepBatch] = []
        self.env_steps = 0
        """Env steps of all envs collected so far (sub-steps of one env step count once)."""
        self.guard = NonFiniteGuard()
        """Checks every observation before the policy acts on it (the trainer shares its guard)."""
        self.on_env_steps: Optional[Callable[[int], None]] = None
        """Called with ``N`` after every env step of the ``N`` envs (e.g. a progress bar's ``update``)."""

    def collect(self, policy: Any) -> Union[RolloutBatch, ActorRollout]:
        """Runs ``T`` env steps in every env with ``policy`` sampling actions.

        Args:
            policy: Any structured policy: ``compute_action(observation, actor_id=...)`` on
                batched observations ``[N, ...]`` returns batched actions ``[N, ...]``.

        Returns:
            The rollout (an :class:`ActorRollout` for envs with dynamic agents); its arrays
            are new for every call.
        """
        if self._dynamic is not None:
            rollout = self._dynamic.collect(policy, self.guard, self.env_steps, self.on_env_steps)
            self.env_steps += self.n_steps * self.env.n_envs
            return rollout
        if self._observation is None:
            self._observation = self._copy(self.env.reset(seed=self._seeds)[0])
        calls = self.n_steps * self.n_slots
        shape = (calls, self.env.n_envs)
        rewards = np.empty(shape, dtype=np.float32)
        terminated = np.empty(shape, dtype=bool)
        truncated = np.empty(shape, dtype=bool)
        final_observations: list[tuple[int, int, dict[str, Any]]] = []
        observation = self._observation
        for t in range(self.n_steps):
            for k in range(self.n_slots):
                actable = self.guard.check_observation(observation, self.env_steps + t * self.env.n_envs, k)
                slot = self._slot(k, t, actable)
                for key, value in actable.items():
                    slot.observations[key][t] = value
                action = policy.compute_action(
                    {key: value[t] for key, value in slot.observations.items()}, actor_id=slot.actor_id
                )
                for key, value in action.items():
                    slot.actions[key][t] = value
                observation, reward, ended, cut, infos = self.env.step(action)
                call = t * self.n_slots + k
                rewards[call] = reward
                terminated[call] = ended
                truncated[call] = cut
                if cut.any():
                    final_observations.extend(
                        (call, index, infos[index]["final_observation"]) for index in cut.nonzero()[0]
                    )
            if self.on_env_steps is not None:
                self.on_env_steps(self.env.n_envs)
        self._observation = self._copy(observation)  # checked again when the policy acts on it
        next_observation = self.guard.check_observation(
            self._observation, self.env_steps + self.n_steps * self.env.n_envs, 0
        )
        self.env_steps += self.n_steps * self.env.n_envs
        batch = RolloutBatch(
            substeps=self._take_substeps(),
            rewards=rewards,
            terminated=terminated,
            truncated=truncated,
            final_observations=final_observations,
            next_observation=next_observation,
            next_actor_id=self.env.actor_ids()[0],
            non_finite_observation=self.guard.take_observation(),
        )
        return batch

    def _slot(self, k: int, t: int, observation: dict[str, np.ndarray]) -> SubStepBatch:
        """The buffers of slot ``k`` (allocated at the first env step of a rollout)."""
        actor_id = self.env.actor_ids()[0]
        if t == 0:
            self._substeps = self._substeps[:k]
            self._substeps.append(self._allocate(actor_id, observation))
            return self._substeps[k]
        slot = self._substeps[k]
        if actor_id[0] != slot.actor_id[0]:
            raise ConfigurationError(
                f"slot {k} of an env step was sub-step {slot.actor_id[0]!r} and is now {actor_id[0]!r}: the env's "
                f"sub-steps must repeat in a fixed order of {self.n_slots} (= sum of agent_counts_dict) per env step; "
                "declare a varying sub-step's agent count as -1 in agent_counts_dict to train it per actor"
            )
        return slot

    def _allocate(self, actor_id: ActorID, observation: dict[str, np.ndarray]) -> SubStepBatch:
        n_envs = self.env.n_envs
        action_space = self.env.action_spaces_dict[actor_id[0]]
        return SubStepBatch(
            actor_id=actor_id,
            observations={
                key: np.empty((self.n_steps, *value.shape), dtype=value.dtype) for key, value in observation.items()
            },
            actions={
                key: np.empty((self.n_steps, n_envs, *space.shape), dtype=space.dtype)
                for key, space in action_space.spaces.items()
            },
        )

    def _take_substeps(self) -> list[SubStepBatch]:
        substeps, self._substeps = self._substeps, []
        return substeps

    @staticmethod
    def _copy(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return {key: np.array(value) for key, value in observation.items()}
