"""ImpalaRunner: IMPALA's learner fed by distributed actors, which the backend places (``algorithm=impala``)."""

from __future__ import annotations

from typing import Annotated, Any

from maze.train.backends.base import ActorsRequest
from maze.train.bounds import Bounds
from maze.train.distributed.actors import DistributedActors
from maze.train.distributed.policy_factory import TorchPolicyFactory
from maze.train.runners.actor_critic_runner import ActorCriticRunner
from maze.train.trainers.impala.config import ImpalaAlgorithmConfig

__all__ = ["ImpalaRunner"]


class ImpalaRunner(ActorCriticRunner):
    """Builds an IMPALA learner whose experience comes from ``num_actors`` distributed actors.

    The backend places the actors (``runner=dev``: stepped in turn in this process with the
    learner's policy; ``local``: one worker process each; ``ray``: one Ray actor each). Model,
    evaluator, best-model selection, checkpoints and ``input_dir`` resume are those of
    :class:`~maze.train.runners.actor_critic_runner.ActorCriticRunner`.

    Args:
        envs_per_actor: Envs each actor steps side by side (one batched policy call per step);
            a rollout of an actor is ``n_rollout_steps`` env steps of each of them.
        **kwargs: The arguments of :class:`~maze.train.runners.training_runner.TrainingRunner`.
    """

    default_trainer = "maze.train.trainers.impala.IMPALA"
    acts_in_worker_processes = True

    def __init__(self, *args: Any, envs_per_actor: Annotated[int, Bounds(ge=1)] = 1, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.envs_per_actor = envs_per_actor

    def _training_env(self) -> None:
        """No env in this process: every actor builds its own."""
        return None

    def _training_source(self, config: ImpalaAlgorithmConfig, model: Any, train_env: None) -> DistributedActors:
        """The distributed actors (started by the trainer's first ``train``)."""
        seeds = [self.seeding.generate_env_instance_seed() for _ in range(config.num_actors * self.envs_per_actor)]
        actors = self.backend.distributed_actors(
            ActorsRequest(
                env_factory=self.env_factory,
                policy=model.policy,
                policy_factory=TorchPolicyFactory(self.model_config, self.spaces_config),
                n_rollout_steps=config.n_rollout_steps,
                num_actors=config.num_actors,
                actors_batch_size=config.actors_batch_size,
                seeds=seeds,
                envs_per_actor=self.envs_per_actor,
                queue_out_of_sync_factor=config.queue_out_of_sync_factor,
            )
        )
        self.training_placement = (
            f"{config.num_actors} actors of {self.envs_per_actor} env(s) each ({type(actors).__name__})"
        )
        return actors
