"""Training runners of IMPALA: actors in this process (dev) or in worker processes (local)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

from maze.train.bounds import Bounds
from maze.train.distributed.actors import DistributedActors, SequentialDistributedActors
from maze.train.distributed.subproc_actors import SubprocDistributedActors
from maze.train.trainers.actor_critic.actor_critic_runners import ACDevRunner, ACLocalRunner, ACRunner
from maze.train.trainers.impala.config import ImpalaAlgorithmConfig

__all__ = ["ImpalaDevRunner", "ImpalaLocalRunner", "ImpalaRunner"]


class ImpalaRunner(ACRunner):
    """Builds an IMPALA learner whose experience comes from ``num_actors`` distributed actors.

    Model, evaluator, best-model selection, checkpoints and ``input_dir`` resume are those of
    :class:`ACRunner`.

    Args:
        envs_per_actor: Envs each actor steps side by side (one batched policy call per step);
            a rollout of an actor is ``n_rollout_steps`` env steps of each of them.
        **kwargs: The arguments of :class:`~maze.train.runners.training_runner.TrainingRunner`.
    """

    def __init__(self, *args: Any, envs_per_actor: Annotated[int, Bounds(ge=1)] = 1, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.envs_per_actor = envs_per_actor

    def _actors(self, config: ImpalaAlgorithmConfig, policy: Any, seeds: list[int]) -> DistributedActors:
        raise NotImplementedError

    def _actor_arguments(self, config: ImpalaAlgorithmConfig, policy: Any) -> tuple[Any, ...]:
        """The leading positional arguments every ``DistributedActors`` class takes (before the seeds)."""
        return self.env_factory, policy, config.n_rollout_steps, config.num_actors, config.actors_batch_size

    def _training_env(self) -> None:
        """No env in this process: every actor builds its own."""
        return None

    def _training_source(self, config: ImpalaAlgorithmConfig, model: Any, train_env: None) -> DistributedActors:
        """The distributed actors (started by the trainer's first ``train``)."""
        seeds = [self.seeding.generate_env_instance_seed() for _ in range(config.num_actors * self.envs_per_actor)]
        actors = self._actors(config, model.policy, seeds)
        self.training_placement = (
            f"{config.num_actors} actors of {self.envs_per_actor} env(s) each ({type(actors).__name__})"
        )
        return actors


class ImpalaDevRunner(ImpalaRunner, ACDevRunner):
    """Actors stepped in turn in the main process with the learner's policy (no lag; easy to debug)."""

    def _actors(self, config: ImpalaAlgorithmConfig, policy: Any, seeds: list[int]) -> DistributedActors:
        return SequentialDistributedActors(
            *self._actor_arguments(config, policy), seeds, envs_per_actor=self.envs_per_actor
        )


class ImpalaLocalRunner(ImpalaRunner, ACLocalRunner):
    """One worker process per actor (:class:`SubprocDistributedActors`); evaluation envs as with ``ACLocalRunner``.

    Args:
        start_method: Start method of the actor processes: ``forkserver``, ``spawn`` or ``fork``
            (``dummy``: actors in this process, like ``runner=dev``).
        **kwargs: The arguments of :class:`~maze.train.runners.training_runner.TrainingRunner`.
    """

    def __init__(self, *args: Any, start_method: str = "forkserver", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.start_method = start_method

    def worker_start_method(self) -> Optional[str]:
        """The actor processes' start method (a fork server starts early)."""
        return self.start_method

    def _actors(self, config: ImpalaAlgorithmConfig, policy: Any, seeds: list[int]) -> DistributedActors:
        arguments = self._actor_arguments(config, policy)
        if self.start_method == "dummy":
            return SequentialDistributedActors(*arguments, seeds, envs_per_actor=self.envs_per_actor)
        return SubprocDistributedActors(
            *arguments,
            seeds=seeds,
            envs_per_actor=self.envs_per_actor,
            queue_out_of_sync_factor=config.queue_out_of_sync_factor,
            start_method=self.start_method,
        )
