"""ESRayDistributedRollouts: ES training pairs played by Ray actors (``algorithm=es runner=ray``; extra ``maze-train[ray]``).

Each worker is a Ray actor holding one :class:`~maze.train.distributed.es.worker.ESRolloutWorkerWrapper`
(its env and policy built from the run's configs on its node, seeded with its own seed).
Work runs in rounds, as with the local worker processes: every worker plays one antithetic
pair around the current parameters (put into the object store once per round), the results
come back in worker order, and rounds repeat while the trainer takes results. With the same
worker seeds the stream of pairs is therefore the same as that of the same workers in one
process, so training reaches the same parameters.

The noise table is never shipped: it is built once per node from its size and seed. On the
learner's node the workers map the learner's own table; on every other node a
:class:`NoiseTableHolder` actor builds it in that node's shared memory and the workers there
map it (a :class:`NoiseTableDirectory` actor hands out the tables, building each node's on
first request).

Fault tolerance: a worker whose process or node died is restarted by Ray (up to
``runner.max_restarts`` times per worker) and its unfinished pair is played again by the
restarted worker (the pair never reached the trainer); one death more stops training with one
:class:`~maze.env.errors.EnvWorkerError`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from multiprocessing import resource_tracker
from typing import Any, Optional

import numpy as np
from maze.env.errors import EnvWorkerError
from maze.rollout.ray_cluster import ActorRestarts, RayCluster, actor_start_failure, new_incarnation, node_id
from maze.train.distributed.es.noise_table import SharedNoiseTable
from maze.train.distributed.es.rollouts import ESDistributedRollouts, ESRolloutResult
from maze.train.distributed.es.worker import ESRolloutWorkerWrapper, ESWorkerFactory

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
    """A Ray actor that hands every worker the noise table of its node, building a node's table on first request.

    Args:
        learner_node: The node of the learner.
        learner_table: The learner's table (mapped by the workers on its node).
    """

    def __init__(self, learner_node: str, learner_table: NoiseTableHandle) -> None:
        self.handles: dict[str, NoiseTableHandle] = {learner_node: learner_table}
        self.holders: list[Any] = []

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
        worker_factory: Builds the worker env (its ``shared_noise`` is replaced by the node's table).
        directory_name: The name of the :class:`NoiseTableDirectory` actor. A name, not the actor's
            handle: a handle among the constructor arguments of an actor with restarts makes Ray
            log an error-level line at the actor's start (ray-project/ray#53727).
        seed: The worker's seed (noise indices, env seeds, policy).
    """

    def __init__(self, worker_factory: ESWorkerFactory, directory_name: str, seed: int) -> None:
        import ray

        directory = ray.get_actor(directory_name)
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
        self, flat_parameters: np.ndarray, noise_stddev: float, max_steps: int
    ) -> tuple[str, ESRolloutResult]:
        """The id of this actor instance (restarts show as new ids) and one antithetic pair.

        See :meth:`ESRolloutWorkerWrapper.generate_training_pair`.
        """
        return self.incarnation, self.worker.generate_training_pair(flat_parameters, noise_stddev, max_steps)

    def pid(self) -> int:
        """The process id of the actor (tests kill it)."""
        import os

        return os.getpid()


class ESRayDistributedRollouts(ESDistributedRollouts):
    """ES training pairs on Ray actors (see the module docs).

    Args:
        worker_factory: Builds a worker env (sent once to each actor; its noise table is not shipped).
        seeds: One seed per worker.
        cluster: Where and how to run on Ray.
        num_cpus_per_worker: CPUs Ray reserves for each worker.
    """

    def __init__(
        self, worker_factory: ESWorkerFactory, seeds: Sequence[int], cluster: RayCluster, num_cpus_per_worker: float = 1
    ) -> None:
        self.cluster = cluster
        self.restarts = ActorRestarts(
            cluster.max_restarts, EnvWorkerError, lambda worker: f"ES worker {worker}", "its pair is played again"
        )
        """Counts the worker restarts (``restarts.total``)."""
        self._stack = ExitStack()
        ray = self._ray = self._stack.enter_context(cluster.connected())
        try:
            shipped = ESWorkerFactory(
                worker_factory.env_factory,
                worker_factory.policy_factory,
                None,  # type: ignore[arg-type]  # the workers map their node's table
                worker_factory.policy_wrapper,
                worker_factory.torch_threads,
            )
            directory_name = f"maze-es-noise-tables-{new_incarnation()}"
            self._directory = (
                ray.remote(NoiseTableDirectory)
                .options(name=directory_name, num_cpus=0, max_restarts=0)
                .remote(node_id(), worker_factory.shared_noise.__getstate__())
            )
            worker_class = ray.remote(ESRayWorker).options(**cluster.actor_options(num_cpus=num_cpus_per_worker))
            self.workers = [worker_class.remote(shipped, directory_name, seed) for seed in seeds]
        except BaseException:
            self._stack.close()
            raise

    def generate_rollouts(
        self, flat_parameters: np.ndarray, noise_stddev: float, max_steps: int
    ) -> Iterator[ESRolloutResult]:
        """Rounds of one pair per worker, yielded in worker order (a round is always finished)."""
        parameters = self._ray.put(np.asarray(flat_parameters, dtype=np.float32))
        while True:
            yield from self._round(parameters, noise_stddev, max_steps)

    def _round(self, parameters: Any, noise_stddev: float, max_steps: int) -> list[ESRolloutResult]:
        """One pair of every worker; the pair of a worker that died is played again after its restart."""
        results: list[Optional[ESRolloutResult]] = [None] * len(self.workers)
        while any(result is None for result in results):
            calls = {
                worker.generate_training_pair.remote(parameters, noise_stddev, max_steps): index
                for index, (worker, result) in enumerate(zip(self.workers, results, strict=True))
                if result is None
            }
            generations = {index: self.restarts.generation(index) for index in calls.values()}
            for call, index in calls.items():
                try:
                    incarnation, results[index] = self._ray.get(call)
                except self._ray.exceptions.RayActorError as error:
                    if error.actor_init_failed:
                        raise EnvWorkerError(actor_start_failure(f"ES worker {index}", error)) from None
                    self.restarts.failed(index, generations[index], error)
                except self._ray.exceptions.RayTaskError as error:
                    raise EnvWorkerError(f"ES worker {index} failed; training stopped. {error}") from None
                else:
                    self.restarts.delivered(index, incarnation)
        return [result for result in results if result is not None]

    def close(self) -> None:
        """Ends the workers and the noise tables' holders; disconnects (a Ray started for the run stops)."""
        for worker in getattr(self, "workers", []):
            self._ray.kill(worker, no_restart=True)
        self.workers = []
        if getattr(self, "_directory", None) is not None:
            self._ray.kill(self._directory, no_restart=True)  # its holders share its fate
            self._directory = None
        self._stack.close()
