"""SAC with its workers on Ray (``algorithm=sac runner=ray``; extra ``maze-train[ray]``)."""

from __future__ import annotations

from typing import Any

from maze.train.replay.ray_workers import RayDistributedWorkersWithBuffer
from maze.train.replay.workers import BaseDistributedWorkersWithBuffer
from maze.train.runners.ray_runner import RayTrainingRunnerMixin
from maze.train.trainers.es.es_rollout_worker import TorchPolicyFactory
from maze.train.trainers.sac.config import SACAlgorithmConfig
from maze.train.trainers.sac.sac_runners import SACRunner

__all__ = ["SACRayRunner"]


class SACRayRunner(RayTrainingRunnerMixin, SACRunner):
    """``algorithm.num_actors`` Ray actors act and feed the replay buffer (:class:`RayDistributedWorkersWithBuffer`).

    The learner, the buffer, the initial sampling (in this process) and the evaluation envs
    stay here; each worker builds its env and policy from the run's configs on its node. See
    :class:`~maze.train.runners.ray_runner.RayTrainingRunnerMixin` for the Ray keys and
    :class:`SACRunner` for the others.
    """

    def _workers(self, config: SACAlgorithmConfig, policy: Any) -> BaseDistributedWorkersWithBuffer:
        n_envs = config.num_actors
        print(f"Collecting transitions with {n_envs} Ray actor{'s' if n_envs > 1 else ''}, one env each")
        buffers = {key: self._replay_buffer(config) for key in self.spaces_config.action_spaces_dict}
        seeds = [self.seeding.generate_env_instance_seed() for _ in range(2 * n_envs)]
        return RayDistributedWorkersWithBuffer(
            self.env_factory,
            policy,
            buffers,
            config.n_rollout_steps,
            n_envs,
            seeds,
            cluster=self.ray_cluster,
            policy_factory=TorchPolicyFactory(self.model_config, self.spaces_config),
            num_cpus_per_actor=self.num_cpus_per_actor,
        )
