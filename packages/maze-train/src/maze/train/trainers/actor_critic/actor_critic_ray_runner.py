"""A2C/PPO with their training envs in Ray actors (``algorithm=a2c|ppo runner=ray``; extra ``maze-train[ray]``)."""

from __future__ import annotations

from typing import Annotated, Any

from maze.rollout.ray_vector_env import RayVectorEnv
from maze.train.bounds import Bounds
from maze.train.runners.env_factory import AUTO_ENVS
from maze.train.runners.ray_runner import RayTrainingRunnerMixin
from maze.train.trainers.actor_critic.actor_critic_runners import ACLocalRunner

__all__ = ["ACRayRunner"]


class ACRayRunner(RayTrainingRunnerMixin, ACLocalRunner):
    """The ``concurrency`` training envs step in Ray actors (:class:`~maze.rollout.ray_vector_env.RayVectorEnv`).

    For expensive envs: the learner, its evaluation envs (placed as with ``runner=local``) and
    the run directory stay in this process; each actor builds its group of envs from the
    run's env and wrapper configs on its node. The number of envs, and so the env steps per
    epoch and the seeds, are those of the other runners. See
    :class:`~maze.train.runners.ray_runner.RayTrainingRunnerMixin` for the Ray keys
    (``runner.max_restarts`` does not apply: a dead env actor stops the run).

    Args:
        env_actors: Ray actors holding the training envs (0: one per CPU of the cluster).
        **kwargs: The arguments of the mixin and of :class:`ACLocalRunner`.
    """

    def __init__(self, *args: Any, env_actors: Annotated[int, Bounds(ge=0)] = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.env_actors = env_actors

    def _training_env(self) -> RayVectorEnv:
        n_envs = self.concurrency or AUTO_ENVS
        train_env = RayVectorEnv(
            [self.env_factory] * n_envs, self.ray_cluster, self.env_actors, self.num_cpus_per_actor, False
        )
        self.training_placement = f"{n_envs} envs in {train_env.num_actors} Ray actors"
        return train_env
