"""ExecutionBackend: where a training run's experience is gathered, handed to every training runner.

A training runner (one per algorithm, see :mod:`maze.train.runners`) builds the trainer, the
model and the run directory; *where* envs step and policies act is the backend's business.
The ``runner=`` config group picks the backend (``runner=dev|local|ray``, see
:mod:`maze.train.backends`), and every backend serves the same seams:

* :meth:`ExecutionBackend.vector_env`: the training and evaluation envs of A2C, PPO, SAC and
  BC (and IMPALA's evaluation envs);
* :meth:`ExecutionBackend.distributed_actors`: IMPALA's acting side;
* :meth:`ExecutionBackend.replay_workers`: the workers that feed SAC's replay buffers;
* :meth:`ExecutionBackend.es_rollouts` and :meth:`ExecutionBackend.es_evaluation_envs`: where
  ES plays its antithetic pairs and its evaluation episodes.

A new backend (a Kubernetes job, a GPU learner, another cluster engine) is one module with a
subclass of :class:`ExecutionBackend` and one YAML in ``conf/runner/`` naming it
(``backend: my_package.my_module.MyBackend``, plus its keys); every algorithm runs on it.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Optional

from maze.env.utils.seeding import MazeSeeding
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.train.distributed.actors import DistributedActors
from maze.train.distributed.es.rollouts import ESDistributedRollouts
from maze.train.distributed.es.worker import ESWorkerFactory
from maze.train.replay.replay_buffer import BaseReplayBuffer
from maze.train.replay.workers import BaseDistributedWorkersWithBuffer

logger = logging.getLogger(__name__)

__all__ = ["ActorsRequest", "ESRolloutsRequest", "ExecutionBackend", "PlacedEnvs", "ReplayWorkersRequest"]


@dataclass(frozen=True)
class PlacedEnvs:
    """A vector env and the words that say where its envs step.

    Attributes:
        env: The vector env.
        placement: E.g. ``8 envs in this process`` or ``8 envs in 2 Ray actors``.
        reason: Why, where the backend decided it by timing the env, e.g. `` (placed
            automatically: an env step takes 0.004 ms, cheaper than a worker round trip)``; else "".
    """

    env: StructuredVectorEnv
    placement: str
    reason: str = ""


@dataclass(frozen=True)
class ActorsRequest:
    """What IMPALA's distributed actors are built from.

    Attributes:
        env_factory: Builds one env (picklable).
        policy: The learner's policy (in-process actors act with it; others with copies).
        policy_factory: Builds a copy of the policy in another process or on another node.
        n_rollout_steps: Env steps of each env per rollout.
        num_actors: Actors.
        actors_batch_size: Rollouts per learner batch.
        seeds: ``num_actors * envs_per_actor`` env seeds.
        envs_per_actor: Envs each actor steps side by side.
        queue_out_of_sync_factor: Rollouts an actor may run ahead, in batches of the learner.
    """

    env_factory: Callable[[], Any]
    policy: Any
    policy_factory: Callable[[], Any]
    n_rollout_steps: int
    num_actors: int
    actors_batch_size: int
    seeds: list[int]
    envs_per_actor: int
    queue_out_of_sync_factor: int

    def leading_arguments(self) -> tuple[Any, ...]:
        """The positional arguments every ``DistributedActors`` class takes first (before the seeds)."""
        return self.env_factory, self.policy, self.n_rollout_steps, self.num_actors, self.actors_batch_size


@dataclass(frozen=True)
class ReplayWorkersRequest:
    """What the workers that feed SAC's replay buffers are built from.

    Attributes:
        env_factory: Builds one env (picklable).
        policy: The learner's policy.
        policy_factory: Builds a copy of the policy in another process or on another node.
        replay_buffers: Sub-step key -> the buffer its transitions go to.
        n_rollout_steps: Env steps of each worker per collection round.
        n_envs: Workers (one env each).
        seeding: The run's seeding (each backend draws the env seeds it needs from it).
    """

    env_factory: Callable[[], Any]
    policy: Any
    policy_factory: Callable[[], Any]
    replay_buffers: Mapping[Any, BaseReplayBuffer]
    n_rollout_steps: int
    n_envs: int
    seeding: MazeSeeding

    def workers_elsewhere(self, workers: str) -> tuple[Any, ...]:
        """Says where the workers act (``workers``: e.g. ``worker process``) and draws two env seeds per worker.

        Returns:
            The positional arguments of a worker class acting outside this process: env factory,
            policy, buffers, rollout steps, number of workers and the ``2 * n_envs`` seeds.
        """
        plural = "es" if workers.endswith("s") else "s"
        logger.info(
            f"Collecting transitions with {self.n_envs} {workers}{plural if self.n_envs > 1 else ''}, one env each"
        )
        seeds = [self.seeding.generate_env_instance_seed() for _ in range(2 * self.n_envs)]
        return self.env_factory, self.policy, self.replay_buffers, self.n_rollout_steps, self.n_envs, seeds


@dataclass(frozen=True)
class ESRolloutsRequest:
    """What ES's rollout workers are built from.

    Attributes:
        worker_factory: Builds the worker factory for a number of torch threads per worker
            (None: torch's default, for a worker in this process).
        n_train_workers: Workers playing training pairs (backends in this process use one).
        seeding: The run's seeding (each backend draws the agent seeds it needs from it).
    """

    worker_factory: Callable[[Optional[int]], ESWorkerFactory]
    n_train_workers: int
    seeding: MazeSeeding


class ExecutionBackend(ABC):
    """The seams where a training run's envs step and its policies act (see the module docs)."""

    name: ClassVar[str] = ""
    """The ``runner`` option that picks the backend (``dev``, ``local``, ``ray``), for messages."""

    def worker_start_method(self) -> Optional[str]:
        """The start method of worker processes acting with torch policies (None: the backend starts none).

        A runner whose workers act with torch policies (IMPALA, SAC, ES) starts a fork server
        early when this is ``forkserver``, so its imports overlap with the rest of the setup.
        """
        return None

    @abstractmethod
    def vector_env(self, env_factory: Callable[[], Any], n_envs: int, automatic: bool, role: str) -> PlacedEnvs:
        """``n_envs`` envs of ``env_factory``.

        Args:
            env_factory: Builds one env (picklable).
            n_envs: Envs (the config decides their number, never the backend: seeds and env steps
                per epoch stay the same on every backend).
            automatic: The config left the placement to the backend (a ``concurrency`` of 0).
            role: ``training`` or ``evaluation``.
        """

    @abstractmethod
    def distributed_actors(self, request: ActorsRequest) -> DistributedActors:
        """IMPALA's actors."""

    @abstractmethod
    def replay_workers(self, request: ReplayWorkersRequest) -> BaseDistributedWorkersWithBuffer:
        """The workers that feed SAC's replay buffers (they print one line saying where they act)."""

    @abstractmethod
    def es_rollouts(self, request: ESRolloutsRequest) -> ESDistributedRollouts:
        """Where ES plays its antithetic training pairs."""

    @abstractmethod
    def es_evaluation_envs(
        self, env_factory: Callable[[], Any], n_eval_rollouts: int, n_eval_workers: int
    ) -> StructuredVectorEnv:
        """ES's evaluation envs for ``n_eval_rollouts`` episodes (``n_eval_workers``: worker processes, if any)."""
