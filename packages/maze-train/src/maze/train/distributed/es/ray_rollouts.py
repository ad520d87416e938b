"""ESRayDistributedRollouts: ES training pairs played by Ray actors (``algorithm=es runner=ray``; extra ``maze-train[ray]``).

Each worker is a Ray actor holding one :class:`~maze.train.distributed.es.worker.ESRolloutWorkerWrapper`
(its env and policy built from the run's configs on its node, seeded with its own seed).
Work runs in rounds, as with the local worker processes: every worker plays one antithetic
pair around the current parameters (put into the object store once per iteration), the results
come back in worker order, and rounds repeat while the trainer takes results. With the same
worker seeds the stream of pairs is therefore the same as that of the same workers in one
process, so training reaches the same parameters.

The noise table is never shipped: it is built once per node from its size and seed. On the
learner's node the workers map the learner's own table; on every other node a
:class:`NoiseTableHolder` actor builds it in that node's shared memory and the workers there
map it. A :class:`NoiseTableDirectory` actor on the learner's node hands every worker its
factory and its node's table (building the table on a node's first request), so a worker's
constructor takes only a name and a seed: Ray can always rebuild it when it restarts the
worker (constructor arguments in the object store could be gone, ray-project/ray#53727).

Fault tolerance (see :mod:`~maze.train.distributed.es.ray_rounds`): a worker whose process or
node died is restarted by Ray (up to ``runner.max_restarts`` times per worker) and resumes its
pair stream where the lost one stood (its unfinished pair never reached the trainer and is
played again), so a killed worker changes nothing in training. A worker that does not run
again within ``runner.restart_timeout_s`` (e.g. the cluster has no room for it) is left out
with a warning in every iteration until it is back; with no worker left, or one death more than
``runner.max_restarts``, training stops with one :class:`~maze.env.errors.EnvWorkerError`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from itertools import count
from multiprocessing import resource_tracker
from typing import Any

import numpy as np
from maze.env.errors import EnvWorkerError
from maze.rollout.ray_cluster import ActorRestarts, RayCluster, cpu_capacity, new_incarnation, node_id
from maze.train.distributed.es.noise_table import SharedNoiseTable
from maze.train.distributed.es.ray_rounds import ESRayRounds
from maze.train.distributed.es.rollouts import ESDistributedRollouts, ESRolloutResult
from maze.train.distributed.es.worker import ESRolloutWorkerWrapper, ESWorkerFactory

logger = logging.getLogger(__name__)

__all__ = ["ESRayDistributedRollouts", "ESRayWorker", "NoiseTableDirectory", "NoiseTableHolder"]

NoiseTableHandle = dict[str, Any]
"""What a process needs to map a shared noise table: its ``count``, ``seed`` and shared-memory ``name``."""


class NoiseTableHolder:
    """A Ray actor owning the noise table of one node (built from its size and seed, never shipped).

    Args:
        count: Values of the table.
        seed: Its seed.
    """

    def __init__(self, count: int, seed: int) -> None:
        self.table = SharedNoiseTable(count, seed)

    def handle(self) -> NoiseTableHandle:
        """How the node's workers map the table."""
        return self.table.__getstate__()


class NoiseTableDirectory:
    """A Ray actor that hands every worker its factory and its node's noise table (built on the node's first request).

    It runs on the learner's node without restarts: it lives as long as the run.

    Args:
        learner_node: The node of the learner.
        learner_table: The learner's table (mapped by the workers on its node).
        worker_factory: Builds a worker env (without a noise table: the workers map their node's).
    """

    def __init__(self, learner_node: str, learner_table: NoiseTableHandle, worker_factory: ESWorkerFactory) -> None:
        self.handles: dict[str, NoiseTableHandle] = {learner_node: learner_table}
        self.holders: list[Any] = []
        self.factory = worker_factory

    def worker_factory(self) -> ESWorkerFactory:
        """The factory of the worker envs."""
        return self.factory

    def table_for(self, node: str) -> NoiseTableHandle:
        """The handle of ``node``'s table (its holder started there first if it has none)."""
        if node not in self.handles:
            import ray
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            learner = self.handles[next(iter(self.handles))]
            holder = (
                ray.remote(NoiseTableHolder)
                .options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False))
                .remote(learner["count"], learner["seed"])
            )
            self.holders.append(holder)
            self.handles[node] = ray.get(holder.handle.remote())
        return self.handles[node]


def _map_table(handle: NoiseTableHandle) -> SharedNoiseTable:
    """Maps a table built by another process of this node (read-only)."""
    table = SharedNoiseTable.__new__(SharedNoiseTable)
    table.__setstate__(handle)
    # Not this process's block: its exit (or death) must not free it for the node's other workers.
    resource_tracker.unregister(table._memory._name, "shared_memory")
    return table


class ESRayWorker:
    """One ES worker inside a Ray actor: its node's noise table, its env and policy, one pair per call.

    Args:
        directory_name: The name of the :class:`NoiseTableDirectory` actor, which hands out the
            worker factory and the node's table. Plain values only: arguments in Ray's object
            store (a handle, or one over Ray's inline limit of 100 KiB) may be gone when Ray
            restarts the actor, and make Ray log an error-level line at its start (ray-project/ray#53727).
        seed: The worker's seed (noise indices, env seeds, policy).
    """

    def __init__(self, directory_name: str, seed: int) -> None:
        import ray

        directory = ray.get_actor(directory_name)
        worker_factory = ray.get(directory.worker_factory.remote())
        table = _map_table(ray.get(directory.table_for.remote(node_id())))
        if worker_factory.torch_threads is not None:
            import torch

            torch.set_num_threads(worker_factory.torch_threads)
        self.worker = ESRolloutWorkerWrapper(
            worker_factory.env_factory(), worker_factory.policy_factory, table, worker_factory.policy_wrapper
        )
        self.worker.reset(seed=seed)
        self.incarnation = new_incarnation()

    def generate_training_pair(
        self, flat_parameters: np.ndarray, noise_stddev: float, max_steps: int, position: int
    ) -> tuple[str, ESRolloutResult]:
        """The id of this actor instance (restarts show as new ids) and the pair at ``position`` of its stream.

        See :meth:`ESRolloutWorkerWrapper.generate_training_pair` and :meth:`ESRolloutWorkerWrapper.seek`.
        """
        self.worker.seek(position)
        return self.incarnation, self.worker.generate_training_pair(flat_parameters, noise_stddev, max_steps)

    def probe(self) -> tuple[str, None]:
        """The id of this actor instance, in the shape of a pair's reply (answers once the actor runs)."""
        return self.incarnation, None

    def pid(self) -> int:
        """The process id of the actor (tests kill it)."""
        import os

        return os.getpid()

    def node(self) -> str:
        """The id of the actor's node (tests remove it)."""
        return node_id()


class ESRayDistributedRollouts(ESDistributedRollouts):
    """ES training pairs on Ray actors (see the module docs).

    Args:
        worker_factory: Builds a worker env (handed to each actor by the directory; its noise table is not shipped).
        seeds: One seed per worker.
        cluster: Where and how to run on Ray.
        num_cpus_per_worker: CPUs Ray reserves for each worker.
        restart_timeout_s: How long a round waits for a worker that Ray restarts (or that still
            starts when another runs) before it goes on without it (``runner.restart_timeout_s``).
    """

    def __init__(
        self,
        worker_factory: ESWorkerFactory,
        seeds: Sequence[int],
        cluster: RayCluster,
        num_cpus_per_worker: float = 1,
        restart_timeout_s: float = 60,
    ) -> None:
        self.cluster = cluster
        self.restarts = ActorRestarts(
            cluster.max_restarts,
            EnvWorkerError,
            lambda worker: f"ES worker {worker}",
            "it resumes its pair stream (its unfinished pair is played again)",
        )
        """Counts the worker restarts (``restarts.total``)."""
        self._stack = ExitStack()
        ray = self._ray = self._stack.enter_context(cluster.connected())
        try:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            shipped = ESWorkerFactory(
                worker_factory.env_factory,
                worker_factory.policy_factory,
                None,  # type: ignore[arg-type]  # the workers map their node's table
                worker_factory.policy_wrapper,
                worker_factory.torch_threads,
            )
            directory_name = f"maze-es-noise-tables-{new_incarnation()}"
            learner_node = node_id()
            self._directory = (
                ray.remote(NoiseTableDirectory)
                .options(
                    name=directory_name,
                    num_cpus=0,
                    max_restarts=0,
                    scheduling_strategy=NodeAffinitySchedulingStrategy(learner_node, soft=False),
                )
                .remote(learner_node, worker_factory.shared_noise.__getstate__(), shipped)
            )
            worker_class = ray.remote(ESRayWorker).options(**cluster.actor_options(num_cpus=num_cpus_per_worker))
            self.workers = [worker_class.remote(directory_name, seed) for seed in seeds]
        except BaseException:
            self._stack.close()
            raise
        self._rounds = ESRayRounds(
            ray, len(self.workers), self.restarts, restart_timeout_s, lambda: cpu_capacity(ray, num_cpus_per_worker)
        )

    def generate_rollouts(
        self, flat_parameters: np.ndarray, noise_stddev: float, max_steps: int
    ) -> Iterator[ESRolloutResult]:
        """Rounds of one pair per running worker, yielded in worker order (a round is always finished).

        After the first round a warning says which workers are left out, if any (once per iteration).
        """
        parameters = self._ray.put(np.asarray(flat_parameters, dtype=np.float32))

        def request(worker: int, position: int) -> Any:
            return self.workers[worker].generate_training_pair.remote(parameters, noise_stddev, max_steps, position)

        for round_number in count():
            results = self._rounds.play(request, self._probe)
            notice = self._rounds.degraded_notice() if round_number == 0 else ""
            if notice:
                logger.warning(notice)
            yield from results

    def _probe(self, worker: int) -> Any:
        return self.workers[worker].probe.remote()

    def close(self) -> None:
        """Ends the workers and the noise tables' holders; disconnects (a Ray started for the run stops)."""
        for worker in getattr(self, "workers", []):
            self._ray.kill(worker, no_restart=True)
        self.workers = []
        if getattr(self, "_directory", None) is not None:
            self._ray.kill(self._directory, no_restart=True)  # its holders share its fate
            self._directory = None
        self._stack.close()
