"""ActorCriticRunner: the runner of the actor-critic family (A2C, PPO; IMPALA and SAC build on it)."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Optional

from maze.env.utils.factory import Factory
from maze.train.bounds import Bounds
from maze.train.core.actor_critic.config import ActorCriticAlgorithmConfig
from maze.train.evaluators.rollout_evaluator import Evaluator
from maze.train.rollout.collector import RolloutCollector
from maze.train.runners.env_factory import AUTO_ENVS
from maze.train.runners.training_runner import TrainingRunner

logger = logging.getLogger(__name__)

__all__ = ["ActorCriticRunner"]


class ActorCriticRunner(TrainingRunner):
    """Builds an actor-critic trainer with its experience source, an evaluator and best-model selection.

    The config alone sets the number of envs: ``concurrency`` training envs (0:
    :data:`~maze.train.runners.env_factory.AUTO_ENVS`) and ``eval_concurrency`` evaluation
    envs (0: one per evaluation episode, at most
    :data:`~maze.train.runners.env_factory.MAX_AUTO_EVAL_ENVS`), and so the env steps per
    epoch and the env seeds; the backend places them (a setting of 0 lets it choose, see
    :meth:`~maze.train.backends.base.ExecutionBackend.vector_env`). One line
    (:meth:`placement_line`) says where the envs step.

    Args:
        concurrency: Training envs (0: :data:`~maze.train.runners.env_factory.AUTO_ENVS`, placed by the backend).
        **kwargs: The arguments of :class:`~maze.train.runners.training_runner.TrainingRunner`.
    """

    def __init__(self, *args: Any, concurrency: Annotated[int, Bounds(ge=0)] = 0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.concurrency = concurrency
        self.training_placement = ""
        """Where the training envs step, e.g. ``8 envs in this process`` (set while the trainer is built)."""
        self.evaluation_placement = ""
        """Where the evaluation envs step ("": no rollout evaluation built here)."""
        self.placement_reason = ""
        """Why the envs step where they do, where the backend timed the env ("": the config says it)."""

    def setup_trainer(self, config: ActorCriticAlgorithmConfig) -> None:
        """Builds ``self.trainer``: training envs, actor-critic model, evaluator, model selection."""
        model = self.composer.torch_actor_critic(self.device)
        if self.input_run is not None:
            self.load_input_model(model)
        self.model_selection = self.best_model_selection(model)
        train_env = self._training_env()
        try:
            evaluator = self._evaluator(config.rollout_evaluator)
        except BaseException:
            if train_env is not None:
                train_env.close()
            raise
        try:
            source = self._training_source(config, model, train_env)
        except BaseException:
            if evaluator is not None:
                evaluator.eval_env.close()
            raise
        logger.info(self.placement_line())
        self.trainer = self.trainer_class(config, source, evaluator, model, self.model_selection)

    def _training_env(self) -> Optional[Any]:
        """The vector env of the training rollouts (built before the evaluator)."""
        placed = self.backend.vector_env(
            self.env_factory, self.concurrency or AUTO_ENVS, automatic=not self.concurrency, role="training"
        )
        self.training_placement = placed.placement
        self.placement_reason = self.placement_reason or placed.reason
        return placed.env

    def _training_source(self, config: ActorCriticAlgorithmConfig, model: Any, train_env: Optional[Any]) -> Any:
        """Where the trainer's experience comes from: a rollout collector over ``train_env`` (seeded here)."""
        seeds = [self.seeding.generate_env_instance_seed() for _ in range(train_env.n_envs)]
        return RolloutCollector(train_env, config.n_rollout_steps, seeds)

    def _evaluator(self, config: Optional[Any]) -> Optional[Evaluator]:
        """The rollout evaluator of ``algorithm.rollout_evaluator`` with its envs (None without one)."""
        if not config:
            return None
        if isinstance(config, Evaluator):  # built in Python (RunContext): it feeds this run's model selection
            config.model_selection = self.model_selection
            return config
        placed, seeds = self.evaluation_envs(int(config.get("n_episodes", 8)))
        self.evaluation_placement = placed.placement
        self.placement_reason = self.placement_reason or placed.reason
        return Factory(Evaluator, ("maze.train.evaluators",)).instantiate(
            config, eval_env=placed.env, model_selection=self.model_selection, seeds=seeds
        )

    def placement_line(self) -> str:
        """The one line that says where the training and the evaluation envs step (and why, where timed)."""
        line = f"Training with {self.training_placement}"
        if self.evaluation_placement:
            line += f"; evaluating with {self.evaluation_placement}"
        return line + self.placement_reason

    def run(self, n_epochs: Optional[int] = None) -> float:
        """Trains (after evaluating a warm-started model once) and writes ``training_summary.json``.

        Returns:
            The best evaluation score.
        """
        try:
            return self.train_and_report(lambda: self.trainer.train(n_epochs))
        finally:
            self.graph_drawing.join()
            self.trainer.close()
            if self.trainer.evaluator is not None:
                self.trainer.evaluator.eval_env.close()
            self.close()
