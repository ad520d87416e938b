"""ES with its training rollouts on Ray actors (``algorithm=es runner=ray``; extra ``maze-train[ray]``)."""

from __future__ import annotations

from typing import Annotated, Any

from maze.train.bounds import Bounds
from maze.train.runners.ray_runner import RayTrainingRunnerMixin
from maze.train.trainers.es.es_distributed_rollouts import ESDistributedRollouts
from maze.train.trainers.es.es_ray_rollouts import ESRayDistributedRollouts
from maze.train.trainers.es.es_runners import ESMasterRunner

__all__ = ["ESRayRunner"]


class ESRayRunner(RayTrainingRunnerMixin, ESMasterRunner):
    """ES whose training pairs are played by ``n_train_workers`` Ray actors (:class:`ESRayDistributedRollouts`).

    The trainer, its noise table and the evaluation stay in this process. With the same
    seeding the run trains the same parameters as ``n_train_workers`` workers in one process.
    See :class:`~maze.train.runners.ray_runner.RayTrainingRunnerMixin` for the Ray keys.

    Args:
        n_train_workers: Ray actors playing training pairs (one pair each per round).
        **kwargs: Keys of :class:`ESMasterRunner` and of the Ray mixin.
    """

    def __init__(self, *args: Any, n_train_workers: Annotated[int, Bounds(ge=1)] = 4, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.n_train_workers = n_train_workers

    def create_distributed_rollouts(self) -> ESDistributedRollouts:
        """``n_train_workers`` Ray actors (one torch thread each)."""
        seeds = [self.seeding.generate_agent_instance_seed() for _ in range(self.n_train_workers)]
        return ESRayDistributedRollouts(
            self.worker_factory(torch_threads=1), seeds, self.ray_cluster, self.num_cpus_per_actor
        )
