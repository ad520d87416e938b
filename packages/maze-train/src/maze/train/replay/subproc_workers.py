"""SubprocDistributedWorkersWithBuffer: worker processes with their own policy copy feed the learner's replay buffer.

The worker processes are IMPALA's actor processes
(:class:`~maze.train.distributed.subproc_actors.SubprocDistributedActors`, without the
behaviour log-probabilities SAC does not need): each holds a copy of the policy, steps its
env and puts whole rollouts (with the policy version they were produced with and the
statistics of the episodes that ended) into a bounded queue. The learner splits them into
transitions for its buffers (per sub-step of structured envs, continuing each worker's
previous rollout: see :mod:`maze.train.replay.substep_transitions`; buffers of whole rollouts
store each rollout whole: see :mod:`maze.train.replay.rollout_buffer`) and broadcasts the
policy's state dict after every iteration through shared memory; a worker loads the newest
weights before each rollout.

**Policy staleness.** The queue holds ``queue_out_of_sync_factor * num_workers`` rollouts and
each worker blocks with one more finished rollout once it is full. Workers that are faster
than the learner (the usual case: one env step against a gradient step) keep it full, so a
rollout the learner takes was produced with the weights of about ``queue_out_of_sync_factor
+ 1`` iterations earlier (1.75 to 2.0 measured on CartPole and Pendulum with the default factor 1);
:attr:`policy_lag` reports the measured age (``SACEvents.policy_lag``).

A worker that raises or dies stops the run with one
:class:`~maze.train.distributed.subproc_actors.ActorFailedError` (an
:class:`~maze.env.errors.EnvWorkerError`) naming the worker, with its traceback;
:meth:`close` ends every worker process.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any, Callable, Optional

from maze.env.core.actor import StepKeyType
from maze.env.log_stats.aggregator import EpisodeStatsBatch, LogStatsAggregator
from maze.env.vector.sequential import SequentialVectorEnv
from maze.train.distributed.actors import DistributedActors
from maze.train.distributed.subproc_actors import SubprocDistributedActors
from maze.train.guards import NonFiniteGuard
from maze.train.replay.replay_buffer import BaseReplayBuffer
from maze.train.replay.workers import BaseDistributedWorkersWithBuffer, DummyDistributedWorkersWithBuffer
from maze.train.rollout.collector import RolloutBatch, RolloutCollector

__all__ = ["SubprocDistributedWorkersWithBuffer"]


class SubprocDistributedWorkersWithBuffer(BaseDistributedWorkersWithBuffer):
    """One worker process per env, each acting with its own copy of the learner's policy (see the module docs).

    The worker processes start with the first :meth:`collect_rollouts` that uses the
    broadcast policy. A call with an explicit ``policy`` (the initial sampling policy, which
    is no torch policy) steps ``num_workers`` envs in this process instead; they are closed
    when the worker processes start.

    Args:
        env_factory: Builds one env (picklable: it is sent to the worker processes).
        policy: The learner's policy (a TorchPolicy); the workers get copies.
        replay_buffers: Sub-step key -> the buffer to fill.
        n_rollout_steps: Env steps per worker rollout.
        num_workers: Worker processes (one env each).
        seeds: ``2 * num_workers`` env seeds: the workers' envs, then the in-process envs'.
        queue_out_of_sync_factor: The rollout queue holds this many rollouts per worker.
        start_method: ``forkserver`` (default), ``spawn`` or ``fork``.
    """

    def __init__(
        self,
        env_factory: Callable[[], Any],
        policy: Any,
        replay_buffers: Mapping[StepKeyType, BaseReplayBuffer],
        n_rollout_steps: int,
        num_workers: int,
        seeds: list[Optional[int]],
        queue_out_of_sync_factor: int = 1,
        start_method: str = "forkserver",
    ) -> None:
        super().__init__(replay_buffers, num_workers, n_rollout_steps)
        self.guard = NonFiniteGuard()
        self.env_steps = 0
        self.actors = self._new_actors(
            env_factory,
            policy,
            n_rollout_steps,
            num_workers,
            num_workers,
            seeds=list(seeds[:num_workers]),
            behaviour_log_probs=False,
            queue_out_of_sync_factor=queue_out_of_sync_factor,
            start_method=start_method,
        )
        self._in_process_seeds = list(seeds[num_workers:])
        self._in_process: Optional[DummyDistributedWorkersWithBuffer] = None
        self._episode_stats: list[EpisodeStatsBatch] = []
        self._transitions: defaultdict[int, Callable[[RolloutBatch], Mapping[StepKeyType, Any]]] = defaultdict(
            self._splitter
        )
        """One per worker: its consecutive rollouts complete each other's transitions."""
        self._incarnations: dict[int, Optional[str]] = {}
        """Worker -> the instance its last rollout came from (a restarted worker's envs start over)."""
        self._started = False

    def _new_actors(self, *args: Any, **kwargs: Any) -> DistributedActors:
        """The actors that act for the workers: worker processes (a cluster backend overrides this)."""
        return SubprocDistributedActors(*args, **kwargs)

    @property
    def policy(self) -> Any:
        """The learner's policy."""
        return self.actors.policy

    def collect_rollouts(self, policy: Optional[Any] = None) -> int:
        """Adds ``num_workers`` worker rollouts to the buffer (or in-process ones of ``policy``, see the class docs).

        Rollouts with a non-finite observation or reward are dropped under ``runner.non_finite=skip``.

        Raises:
            ActorFailedError: A worker raised (with its traceback) or its process died.
        """
        if policy is not None and not self._started:
            return self._collect_in_process(policy)
        if not self._started:
            self._close_in_process()
            self.actors.start()
            self._started = True
        outputs = self.actors.collect_outputs()
        added = 0
        for output in outputs:
            self._episode_stats.extend(output.episode_stats)
            if self._incarnations.setdefault(output.actor, output.incarnation) != output.incarnation:
                self._incarnations[output.actor] = output.incarnation
                self._transitions[output.actor] = self._splitter()  # no transition joins two instances' envs
            rollout = output.rollout
            steps = rollout.n_steps * rollout.n_envs
            self.env_steps += steps
            if self.on_env_steps is not None:
                self.on_env_steps(steps)
            added += self._store(rollout, self._transitions[output.actor])
        self.policy_lag = sum(self.actors.policy_version - output.policy_version for output in outputs) / len(outputs)
        return added

    def collect_episode_stats(self, aggregator: LogStatsAggregator) -> None:
        """The statistics of the episodes that ended in the rollouts taken since the last call."""
        if self._in_process is not None:
            self._in_process.collect_episode_stats(aggregator)
        for episodes in self._episode_stats:
            aggregator.add_episode_stats(episodes)
        self._episode_stats = []

    def broadcast_updated_policy(self, policy: Any) -> None:
        """Writes the policy's weights into the workers' shared weights (read before their next rollout)."""
        if self._started:
            self.actors.broadcast_updated_policy(policy)

    def take_restarts(self) -> int:
        """Workers restarted since the last call (see the actors' ``take_restarts``)."""
        return self.actors.take_restarts()

    def degraded_notice(self) -> str:
        """The actors' warning about lost workers (see the actors' ``degraded_notice``)."""
        return self.actors.degraded_notice()

    def close(self) -> None:
        """Stops the worker processes (none outlives this call) and closes the in-process envs."""
        try:
            if self._in_process is not None:
                self._in_process.close()
                self._in_process = None
        finally:
            self.actors.stop()

    def _collect_in_process(self, policy: Any) -> int:
        if self._in_process is None:
            env = SequentialVectorEnv([self.actors.env_factory] * self.n_envs)
            collector = RolloutCollector(env, self.n_rollout_steps, self._in_process_seeds)
            self._in_process = DummyDistributedWorkersWithBuffer(collector, self.policy, self.replay_buffers)
        self._in_process.guard = self.guard
        before = self._in_process.env_steps
        added = self._in_process.collect_rollouts(policy)
        self.env_steps += self._in_process.env_steps - before
        self.sub_steps = self._in_process.sub_steps
        return added

    def _close_in_process(self) -> None:
        """Closes the in-process envs, keeping their finished episodes for :meth:`collect_episode_stats`."""
        if self._in_process is not None:
            self._episode_stats.extend(self._in_process.collector.env.call("take_episode_stats"))
            self._in_process.close()
            self._in_process = None
