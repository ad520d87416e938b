"""InProcessBackend (``runner=dev``): every env and every policy in the main process; easy to debug, deterministic."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from maze.env.vector.vector_env import StructuredVectorEnv
from maze.train.backends.base import (
    ActorsRequest,
    ESRolloutsRequest,
    ExecutionBackend,
    PlacedEnvs,
    ReplayWorkersRequest,
)
from maze.train.distributed.actors import DistributedActors, SequentialDistributedActors
from maze.train.distributed.es.rollouts import ESDistributedRollouts
from maze.train.distributed.es.vector_rollouts import ESDummyDistributedRollouts
from maze.train.replay.workers import BaseDistributedWorkersWithBuffer, DummyDistributedWorkersWithBuffer
from maze.train.rollout.collector import RolloutCollector
from maze.train.runners.env_factory import MAX_AUTO_EVAL_ENVS, build_vector_env

logger = logging.getLogger(__name__)

__all__ = ["InProcessBackend"]


class InProcessBackend(ExecutionBackend):
    """Envs step in this process, IMPALA's actors in turn with the learner's policy, ES with one worker."""

    name = "dev"

    def vector_env(self, env_factory: Callable[[], Any], n_envs: int, automatic: bool, role: str) -> PlacedEnvs:
        """``n_envs`` envs in this process."""
        return PlacedEnvs(build_vector_env(env_factory, n_envs, False), f"{n_envs} envs in this process")

    def distributed_actors(self, request: ActorsRequest) -> DistributedActors:
        """The actors stepped in turn with the learner's policy (no lag)."""
        return SequentialDistributedActors(
            *request.leading_arguments(), request.seeds, envs_per_actor=request.envs_per_actor
        )

    def replay_workers(self, request: ReplayWorkersRequest) -> BaseDistributedWorkersWithBuffer:
        """``n_envs`` envs in this process acting with the learner's policy."""
        n_envs = request.n_envs
        logger.info(f"Collecting transitions with {n_envs} env{'s' if n_envs > 1 else ''} in this process")
        train_env = build_vector_env(request.env_factory, n_envs, False)
        seeds = [request.seeding.generate_env_instance_seed() for _ in range(n_envs)]
        collector = RolloutCollector(train_env, request.n_rollout_steps, seeds)
        return DummyDistributedWorkersWithBuffer(collector, request.policy, request.replay_buffers)

    def es_rollouts(self, request: ESRolloutsRequest) -> ESDistributedRollouts:
        """One worker in this process."""
        return ESDummyDistributedRollouts(request.worker_factory(None), request.seeding.generate_agent_instance_seed())

    def es_evaluation_envs(
        self, env_factory: Callable[[], Any], n_eval_rollouts: int, n_eval_workers: int
    ) -> StructuredVectorEnv:
        """One env per episode (at most 32) in this process, whatever ``n_eval_workers`` says."""
        return build_vector_env(env_factory, min(n_eval_rollouts, MAX_AUTO_EVAL_ENVS), False)
