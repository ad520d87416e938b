"""ES rollouts on vector envs of worker wrappers: in this process (dev) and in worker processes (local)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Optional

import numpy as np
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.train.distributed.es.rollouts import ESDistributedRollouts, ESRolloutResult
from maze.train.distributed.es.worker import ESWorkerFactory

__all__ = ["ESDummyDistributedRollouts", "ESSubprocDistributedRollouts", "ESVectorDistributedRollouts"]


class ESVectorDistributedRollouts(ESDistributedRollouts):
    """Every worker env of a vector env plays one antithetic pair per round; rounds repeat while results are taken.

    Args:
        vector_env: A vector env of :class:`~maze.train.distributed.es.worker.ESRolloutWorkerWrapper` s.
        seeds: One seed per worker (its noise indices, env seeds and policy sampler).
    """

    def __init__(self, vector_env: StructuredVectorEnv, seeds: Sequence[int]) -> None:
        self.vector_env = vector_env
        try:
            vector_env.reset(seed=list(seeds))
        except BaseException:
            vector_env.close()
            raise

    @property
    def n_workers(self) -> int:
        """The worker envs."""
        return self.vector_env.n_envs

    def generate_rollouts(
        self, flat_parameters: np.ndarray, noise_stddev: float, max_steps: int
    ) -> Iterator[ESRolloutResult]:
        """Rounds of one pair per worker; a round in progress is always finished (nothing carries over)."""
        while True:
            yield from self.vector_env.call("generate_training_pair", flat_parameters, noise_stddev, max_steps)

    def close(self) -> None:
        """Closes the vector env (and stops its worker processes)."""
        self.vector_env.close()


class ESDummyDistributedRollouts(ESVectorDistributedRollouts):
    """Implementation of the ES distribution by running the rollouts synchronously in the same process.

    Args:
        worker_factory: Builds the worker env.
        seed: The worker's seed.
    """

    def __init__(self, worker_factory: ESWorkerFactory, seed: int) -> None:
        super().__init__(SequentialVectorEnv([worker_factory], copy_observations=False), [seed])


class ESSubprocDistributedRollouts(ESVectorDistributedRollouts):
    """Rollouts in ``len(seeds)`` worker processes; the shared noise table is mapped, not copied, into each.

    A worker that raises or dies stops the run with one :class:`~maze.env.errors.EnvWorkerError`
    (a MazeError) carrying its traceback; :meth:`close` stops every worker.

    Args:
        worker_factory: Builds a worker env (pickled into each process).
        seeds: One seed per worker.
        start_method: ``forkserver``, ``spawn`` or ``fork`` (None: forkserver where available).
    """

    def __init__(
        self, worker_factory: ESWorkerFactory, seeds: Sequence[int], start_method: Optional[str] = None
    ) -> None:
        super().__init__(
            SubprocVectorEnv([worker_factory] * len(seeds), start_method=start_method, copy_observations=False),
            seeds,
        )

    @property
    def processes(self) -> list:
        """The worker processes."""
        return self.vector_env.processes
