"""Workers that act in envs and feed a replay buffer; the learner only samples from the buffer.

Acting is kept behind :class:`BaseDistributedWorkersWithBuffer` so that the trainer does not
know where the policy acts: :class:`DummyDistributedWorkersWithBuffer` steps a vector env with
the learner's own policy object (``sac-dev``);
:class:`~maze.train.replay.subproc_workers.SubprocDistributedWorkersWithBuffer` runs worker
processes that each hold a copy of the policy (``sac-local``); a cluster backend implements
the same calls.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

import numpy as np
from maze.env.core.actor import StepKeyType
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.vector_stats import collect_episode_stats
from maze.train.guards import NonFiniteGuard
from maze.train.replay.replay_buffer import BaseReplayBuffer, TransitionBatch
from maze.train.replay.rollout_buffer import env_rollouts
from maze.train.replay.substep_transitions import SubStepTransitions
from maze.train.rollout.collector import RolloutBatch, RolloutCollector
from maze.train.utils import delegated, stack_numpy_dict_list

__all__ = [
    "BaseDistributedWorkersWithBuffer",
    "BatchedPolicy",
    "DummyDistributedWorkersWithBuffer",
]


class BatchedPolicy:
    """Lets a single-observation policy (e.g. :class:`RandomPolicy`) act on a batch of ``n_envs`` observations."""

    def __init__(self, policy: Any, n_envs: int) -> None:
        self.policy = policy
        self.n_envs = n_envs

    def compute_action(self, observation: Mapping[str, np.ndarray], actor_id: Any = None, **kwargs: Any) -> dict:
        """Stacks ``n_envs`` single actions (head -> ``[n_envs, *shape]``)."""
        actions = [
            self.policy.compute_action({key: value[index] for key, value in observation.items()}, actor_id=actor_id)
            for index in range(self.n_envs)
        ]
        return stack_numpy_dict_list(actions)


class BaseDistributedWorkersWithBuffer(ABC):
    """Workers collecting transitions into replay buffers, one per sub-step key.

    A flat env has one sub-step and one buffer; in a structured env every sub-step's actors
    store their own transitions (see :mod:`maze.train.replay.substep_transitions`) in the
    buffer of their sub-step key. Buffers of whole rollouts
    (:class:`~maze.train.replay.rollout_buffer.RolloutReplayBuffer`, flat envs) get every env's
    rollout whole.

    Args:
        replay_buffers: Sub-step key -> the buffer the workers fill and the learner samples from.
        n_envs: Envs stepped by one :meth:`collect_rollouts` (all workers together).
        n_rollout_steps: Env steps per env and rollout.

    Raises:
        ValueError: If buffers of whole rollouts hold rollouts of another length than ``n_rollout_steps``.
    """

    guard: NonFiniteGuard
    """Checks the rewards of the collected rollouts (the trainer shares its guard)."""
    env_steps: int
    """Env steps of the rollouts added to the buffer so far (settable: resumes restore it)."""
    policy_lag: float = 0.0
    """Mean age, in policy broadcasts, of the policy that produced the last :meth:`collect_rollouts`."""

    sub_steps: int = 1
    """Sub-steps per env step of the collected rollouts (1 before the first)."""

    def __init__(
        self, replay_buffers: Mapping[StepKeyType, BaseReplayBuffer], n_envs: int, n_rollout_steps: int
    ) -> None:
        self.replay_buffers = dict(replay_buffers)
        self.n_envs = n_envs
        self.n_rollout_steps = n_rollout_steps
        lengths = {buffer.rollout_length for buffer in self.replay_buffers.values()}
        if lengths not in ({None}, {n_rollout_steps}):
            raise ValueError(
                f"the replay buffers store rollouts of {lengths} steps; the workers collect {n_rollout_steps}"
            )
        self.whole_rollouts = lengths == {n_rollout_steps}
        """The buffers store whole rollouts (:mod:`maze.train.replay.rollout_buffer`), else transitions."""
        self.on_env_steps: Optional[Callable[[int], Any]] = None
        """Called with the number of env steps whenever some were collected (e.g. a progress bar's ``update``)."""

    @abstractmethod
    def collect_rollouts(self, policy: Optional[Any] = None) -> int:
        """Collects ``n_rollout_steps`` in each of the ``n_envs`` envs into the buffer; returns the transitions added.

        Args:
            policy: Act with this policy instead of the latest broadcast one (e.g. the initial sampling policy).
        """

    @abstractmethod
    def collect_episode_stats(self, aggregator: LogStatsAggregator) -> None:
        """Moves the statistics of the training episodes that ended since the last call into ``aggregator``."""

    @abstractmethod
    def broadcast_updated_policy(self, policy: Any) -> None:
        """Hands the learner's new policy parameters to the workers.

        Args:
            policy: The learner's policy (workers that need its weights take them from it), or its
                state dict.
        """

    @property
    def replay_buffer(self) -> BaseReplayBuffer:
        """The buffer of the first sub-step key (the only one of a flat env)."""
        return next(iter(self.replay_buffers.values()))

    def stored_transitions(self) -> int:
        """Transitions in all buffers."""
        return sum(len(buffer) for buffer in self.replay_buffers.values())

    def add_transitions(self, transitions: Sequence[TransitionBatch[np.ndarray]]) -> None:
        """Adds externally collected transitions of a flat env (e.g. demonstrations) to its buffer.

        A buffer of whole rollouts takes every batch as consecutive rollouts of its rollout length.
        """
        for batch in transitions:
            self.replay_buffer.add_transitions(batch)

    def sample_batch(self, n_samples: int, learner_device: Any = "cpu") -> TransitionBatch:
        """A training batch from the first (a flat env's only) buffer."""
        return self.replay_buffer.sample_batch(n_samples, learner_device)

    def sample_batches(self, n_samples: int, learner_device: Any = "cpu") -> dict[StepKeyType, TransitionBatch]:
        """A training batch of every sub-step key whose buffer holds transitions."""
        return {
            key: buffer.sample_batch(n_samples, learner_device)
            for key, buffer in self.replay_buffers.items()
            if len(buffer)
        }

    def _splitter(self) -> Callable[[RolloutBatch], Mapping[StepKeyType, TransitionBatch[np.ndarray]]]:
        """Turns consecutive rollouts of one vector env into what the buffers store, by sub-step key.

        Whole rollouts env by env (:func:`env_rollouts`) for buffers of rollouts, else the
        transitions per sub-step (a new :class:`SubStepTransitions`).
        """
        return env_rollouts if self.whole_rollouts else SubStepTransitions()

    def _store(self, rollout: RolloutBatch, transitions: Callable[[RolloutBatch], Mapping[StepKeyType, Any]]) -> int:
        """Adds the transitions of ``rollout`` (unless an observation or reward is not finite); returns how many."""
        self.sub_steps = rollout.n_slots
        if not self.guard.rollout_ok(rollout):
            return 0  # runner.non_finite=skip: the rollout is not stored
        added = 0
        for key, batch in transitions(rollout).items():
            self.replay_buffers[key].add_transitions(batch)
            added += len(batch)
        return added

    def take_restarts(self) -> int:
        """Workers restarted since the last call (after their process or node died); 0 where none are restarted."""
        return 0

    def degraded_notice(self) -> str:
        """A warning while some workers are lost and training goes on without them (empty while all deliver)."""
        return ""

    @abstractmethod
    def close(self) -> None:
        """Stops the workers (no worker process outlives this call)."""


class DummyDistributedWorkersWithBuffer(BaseDistributedWorkersWithBuffer):
    """Steps a vector env with the learner's own policy object (no copies to keep in sync, no lag).

    Each env is one worker; the policy acts here with one batched forward pass per step. With
    in-process envs (``sac-dev``) the whole collection is deterministic for given seeds.

    Args:
        collector: Steps the vector env (``n_rollout_steps`` per env and rollout).
        policy: The learner's policy (shared, so broadcasting is a no-op).
        replay_buffers: Sub-step key -> the buffer to fill.
    """

    def __init__(
        self, collector: RolloutCollector, policy: Any, replay_buffers: Mapping[StepKeyType, BaseReplayBuffer]
    ) -> None:
        self.collector = collector
        self.policy = policy
        super().__init__(replay_buffers, collector.env.n_envs, collector.n_steps)
        self._transitions = self._splitter()

    guard = delegated(  # type: ignore[assignment]
        "collector", "guard", "The collector's guard (it also checks the observations before the policy acts)."
    )
    env_steps = delegated("collector", "env_steps", "Env steps collected so far (all envs).")  # type: ignore[assignment]
    on_env_steps = delegated(  # type: ignore[assignment]
        "collector", "on_env_steps", "The collector's callback after every env step of all envs."
    )

    def collect_episode_stats(self, aggregator: LogStatsAggregator) -> None:
        """Takes the finished episodes' statistics from the vector env."""
        collect_episode_stats(self.collector.env, aggregator)

    def collect_rollouts(self, policy: Optional[Any] = None) -> int:
        """Collects ``n_rollout_steps`` steps in every env into the buffer (unless a reward is not finite)."""
        return self._store(self.collector.collect(policy if policy is not None else self.policy), self._transitions)

    def broadcast_updated_policy(self, policy: Any) -> None:
        """Nothing to do: the envs are stepped with the learner's policy object itself."""

    def close(self) -> None:
        """Closes the vector env."""
        self.collector.env.close()
