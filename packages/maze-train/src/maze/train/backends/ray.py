"""RayBackend (``runner=ray``): envs, IMPALA actors, SAC workers and ES workers as Ray actors (extra ``maze-train[ray]``).

The learner, the evaluation and the run directory stay in this process; each actor builds
its envs and its policy from the run's configs on its own node. Ray is imported when the
backend is built, so a missing extra fails before anything else with one line naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Optional

from maze.env.vector.vector_env import StructuredVectorEnv
from maze.rollout.ray_cluster import RayCluster
from maze.rollout.ray_vector_env import RayVectorEnv
from maze.train.backends.base import ActorsRequest, ESRolloutsRequest, PlacedEnvs, ReplayWorkersRequest
from maze.train.backends.in_process import InProcessBackend
from maze.train.backends.processes import SubprocessBackend
from maze.train.bounds import Bounds
from maze.train.distributed.actors import DistributedActors
from maze.train.distributed.es.ray_rollouts import ESRayDistributedRollouts
from maze.train.distributed.es.rollouts import ESDistributedRollouts
from maze.train.distributed.ray_actors import RayDistributedActors
from maze.train.replay.ray_workers import RayDistributedWorkersWithBuffer
from maze.train.replay.workers import BaseDistributedWorkersWithBuffer

__all__ = ["RAY_TRAIN_EXTRA", "RayBackend"]

RAY_TRAIN_EXTRA = "maze-train[ray]"
"""The extra that installs Ray for training."""


class RayBackend(SubprocessBackend):
    """The acting side on Ray actors, on this machine or a cluster; evaluation envs placed as with ``runner=local``.

    Args:
        ray_address: Cluster to use (None: ``RAY_ADDRESS``, else a local Ray; see :mod:`maze.rollout.ray_cluster`).
        ray_init: Further ``ray.init`` arguments.
        runtime_env: Ray runtime environment of the actors (``working_dir``/``py_modules``: your own modules).
        max_restarts: Restarts of each actor whose process or node died before the run stops
            (the env actors of A2C/PPO too: see :mod:`maze.rollout.ray_vector_env`).
        num_cpus_per_actor: CPUs Ray reserves for each actor.
        env_actors: Ray actors holding the training envs of A2C/PPO (0: one per CPU of the
            cluster, divided by ``num_cpus_per_actor``).
        restart_timeout_s: How long an ES round waits for a worker that Ray restarts after its
            process or node died; then the round goes on without it (the run stops when no worker is left).
            IMPALA/SAC: after how long a lost actor is named in the epoch's warning (the learner goes on
            with the others; it stops when every actor is lost this long).
            A2C/PPO: how long a step waits for a dead env actor's restart before the run stops.
        start_method: Start method of evaluation envs in worker processes (see :class:`SubprocessBackend`).
    """

    name = "ray"

    def __init__(
        self,
        ray_address: Optional[str] = None,
        ray_init: Optional[Mapping[str, Any]] = None,
        runtime_env: Optional[Mapping[str, Any]] = None,
        max_restarts: Annotated[int, Bounds(ge=0)] = 3,
        num_cpus_per_actor: Annotated[float, Bounds(gt=0)] = 1,
        env_actors: Annotated[int, Bounds(ge=0)] = 0,
        restart_timeout_s: Annotated[float, Bounds(gt=0)] = 60,
        start_method: str = "forkserver",
    ) -> None:
        super().__init__(start_method)
        self.cluster = RayCluster(
            ray_address, ray_init or {}, runtime_env, max_restarts, component="runner=ray", extra=RAY_TRAIN_EXTRA
        )
        self.cluster.require_ray()
        self.num_cpus_per_actor = num_cpus_per_actor
        self.env_actors = env_actors
        self.restart_timeout_s = restart_timeout_s

    def worker_start_method(self) -> Optional[str]:
        """None: the actors are Ray's processes."""
        return None

    def vector_env(self, env_factory: Callable[[], Any], n_envs: int, automatic: bool, role: str) -> PlacedEnvs:
        """Training envs in groups of contiguous envs, one group per Ray actor; evaluation envs as ``runner=local``."""
        if role != "training":
            return super().vector_env(env_factory, n_envs, automatic, role)
        env = RayVectorEnv(
            [env_factory] * n_envs,
            self.cluster,
            self.env_actors,
            self.num_cpus_per_actor,
            copy_observations=False,
            restart_timeout_s=self.restart_timeout_s,
        )
        return PlacedEnvs(env, f"{n_envs} envs in {env.num_actors} Ray actors")

    def distributed_actors(self, request: ActorsRequest) -> DistributedActors:
        """One Ray actor per IMPALA actor."""
        return RayDistributedActors(
            *request.leading_arguments(),
            request.seeds,
            envs_per_actor=request.envs_per_actor,
            cluster=self.cluster,
            policy_factory=request.policy_factory,
            num_cpus_per_actor=self.num_cpus_per_actor,
            restart_timeout_s=self.restart_timeout_s,
        )

    def replay_workers(self, request: ReplayWorkersRequest) -> BaseDistributedWorkersWithBuffer:
        """``n_envs`` Ray actors, each stepping one env with its own copy of the policy."""
        return RayDistributedWorkersWithBuffer(
            *request.workers_elsewhere("Ray actor"),
            cluster=self.cluster,
            policy_factory=request.policy_factory,
            num_cpus_per_actor=self.num_cpus_per_actor,
            restart_timeout_s=self.restart_timeout_s,
        )

    def es_rollouts(self, request: ESRolloutsRequest) -> ESDistributedRollouts:
        """``n_train_workers`` Ray actors (one torch thread each; ``restart_timeout_s``, see :mod:`~maze.train.distributed.es.ray_rounds`)."""
        seeds = [request.seeding.generate_agent_instance_seed() for _ in range(request.n_train_workers)]
        return ESRayDistributedRollouts(
            request.worker_factory(1), seeds, self.cluster, self.num_cpus_per_actor, self.restart_timeout_s
        )

    def es_evaluation_envs(
        self, env_factory: Callable[[], Any], n_eval_rollouts: int, n_eval_workers: int
    ) -> StructuredVectorEnv:
        """One env per episode (at most 32) in this process."""
        return InProcessBackend.es_evaluation_envs(self, env_factory, n_eval_rollouts, n_eval_workers)
