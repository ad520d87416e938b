"""SubprocessBackend (``runner=local``): envs and actors in worker processes of this machine.

Automatic placement (a ``concurrency`` of 0) times one env once: a worker round trip costs
more than a cheap env's step (CartPole, Cutting-2D), so such envs step in this process and
expensive ones in worker processes. The timing decides only *where* envs run, never how many,
so a run trains the same on an idle and on a busy machine, and the same as with ``runner=dev``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from maze.env.vector.subproc import SubprocVectorEnv
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.train.backends.base import ActorsRequest, ESRolloutsRequest, PlacedEnvs, ReplayWorkersRequest
from maze.train.backends.in_process import InProcessBackend
from maze.train.distributed.actors import DistributedActors
from maze.train.distributed.es.rollouts import ESDistributedRollouts
from maze.train.distributed.es.vector_rollouts import ESSubprocDistributedRollouts
from maze.train.distributed.subproc_actors import SubprocDistributedActors
from maze.train.replay.subproc_workers import SubprocDistributedWorkersWithBuffer
from maze.train.replay.workers import BaseDistributedWorkersWithBuffer
from maze.train.runners.env_factory import build_vector_env, measure_step_seconds, prefers_worker_processes

__all__ = ["SubprocessBackend"]

IN_PROCESS = "dummy"
"""The ``start_method`` that keeps actors and workers in this process (as ``runner=dev``)."""


class SubprocessBackend(InProcessBackend):
    """Envs, IMPALA actors, SAC workers and ES workers in worker processes of this machine.

    Args:
        start_method: Start method of the worker processes acting with torch policies:
            ``forkserver``, ``spawn`` or ``fork`` (``dummy``: IMPALA's actors and SAC's workers in
            this process, as with ``runner=dev``).
    """

    name = "local"

    def __init__(self, start_method: str = "forkserver") -> None:
        self.start_method = start_method
        self._step_seconds: Optional[float] = None

    def worker_start_method(self) -> Optional[str]:
        """The configured start method."""
        return self.start_method

    def vector_env(self, env_factory: Callable[[], Any], n_envs: int, automatic: bool, role: str) -> PlacedEnvs:
        """Worker processes, one per env; placed by timing the env when ``automatic``."""
        subprocesses = self._prefers_workers(env_factory) if automatic else True
        env = build_vector_env(env_factory, n_envs, subprocesses)
        where = "in worker processes" if subprocesses else "in this process"
        return PlacedEnvs(env, f"{n_envs} envs {where}", self._placement_reason(automatic))

    def _prefers_workers(self, env_factory: Callable[[], Any]) -> bool:
        """Times one env (its own fixed seed, once per run); True when its step costs more than a round trip."""
        if self._step_seconds is None:
            probe_env = env_factory()
            try:
                self._step_seconds = measure_step_seconds(probe_env)
            finally:
                probe_env.close()
        return prefers_worker_processes(self._step_seconds)

    def _placement_reason(self, automatic: bool) -> str:
        """Why automatic placement chose where the envs step ("" for a placement the config set)."""
        if not automatic or self._step_seconds is None:
            return ""
        cost = "costlier" if prefers_worker_processes(self._step_seconds) else "cheaper"
        return f" (placed automatically: an env step takes {self._step_seconds * 1e3:.3f} ms, {cost} than a worker round trip)"

    def distributed_actors(self, request: ActorsRequest) -> DistributedActors:
        """One worker process per actor (in this process with ``start_method: dummy``)."""
        if self.start_method == IN_PROCESS:
            return super().distributed_actors(request)
        return SubprocDistributedActors(
            *request.leading_arguments(),
            seeds=request.seeds,
            envs_per_actor=request.envs_per_actor,
            queue_out_of_sync_factor=request.queue_out_of_sync_factor,
            start_method=self.start_method,
        )

    def replay_workers(self, request: ReplayWorkersRequest) -> BaseDistributedWorkersWithBuffer:
        """``n_envs`` worker processes, each stepping one env with its own copy of the policy."""
        if self.start_method == IN_PROCESS:
            return super().replay_workers(request)
        return SubprocDistributedWorkersWithBuffer(
            *request.workers_elsewhere("worker process"), start_method=self.start_method
        )

    def es_rollouts(self, request: ESRolloutsRequest) -> ESDistributedRollouts:
        """``n_train_workers`` worker processes (one torch thread each)."""
        seeds = [request.seeding.generate_agent_instance_seed() for _ in range(request.n_train_workers)]
        return ESSubprocDistributedRollouts(request.worker_factory(1), seeds, self.start_method)

    def es_evaluation_envs(
        self, env_factory: Callable[[], Any], n_eval_rollouts: int, n_eval_workers: int
    ) -> StructuredVectorEnv:
        """``n_eval_workers`` worker processes (0: one env per episode in this process)."""
        if not n_eval_workers:
            return super().es_evaluation_envs(env_factory, n_eval_rollouts, n_eval_workers)
        return SubprocVectorEnv([env_factory] * n_eval_workers, start_method=self.start_method)
