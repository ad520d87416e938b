"""IMPALA with its actors on Ray (``algorithm=impala runner=ray``; extra ``maze-train[ray]``)."""

from __future__ import annotations

from typing import Any

from maze.train.distributed.actors import DistributedActors
from maze.train.distributed.ray_actors import RayDistributedActors
from maze.train.runners.ray_runner import RayTrainingRunnerMixin
from maze.train.trainers.actor_critic.actor_critic_runners import ACLocalRunner
from maze.train.trainers.es.es_rollout_worker import TorchPolicyFactory
from maze.train.trainers.impala.config import ImpalaAlgorithmConfig
from maze.train.trainers.impala.impala_runners import ImpalaRunner

__all__ = ["ImpalaRayRunner"]


class ImpalaRayRunner(RayTrainingRunnerMixin, ImpalaRunner, ACLocalRunner):
    """One Ray actor per IMPALA actor (:class:`~maze.train.distributed.ray_actors.RayDistributedActors`).

    The learner, its evaluation envs (placed as with ``runner=local``) and the run directory
    stay in this process; each actor builds its envs and its policy from the run's env,
    wrappers and model configs on its own node. See
    :class:`~maze.train.runners.ray_runner.RayTrainingRunnerMixin` for the Ray keys and
    :class:`ImpalaRunner` for the others.
    """

    def _actors(self, config: ImpalaAlgorithmConfig, policy: Any, seeds: list[int]) -> DistributedActors:
        return RayDistributedActors(
            *self._actor_arguments(config, policy),
            seeds,
            envs_per_actor=self.envs_per_actor,
            cluster=self.ray_cluster,
            policy_factory=TorchPolicyFactory(self.model_config, self.spaces_config),
            num_cpus_per_actor=self.num_cpus_per_actor,
        )
