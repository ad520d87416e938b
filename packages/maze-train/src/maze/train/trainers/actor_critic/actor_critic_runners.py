"""Training runners of the actor-critic trainers (A2C, PPO): in-process (dev) and with worker processes (local)."""

from __future__ import annotations

from typing import Any, Optional

from maze.env.utils.factory import Factory
from maze.train.evaluators.rollout_evaluator import Evaluator
from maze.train.rollout.collector import RolloutCollector
from maze.train.runners.env_factory import (
    AUTO_IN_PROCESS_ENVS,
    MAX_IN_PROCESS_EVAL_ENVS,
    auto_concurrency,
    build_vector_env,
    measure_step_seconds,
)
from maze.train.runners.training_runner import TrainingRunner
from maze.train.trainers.actor_critic.config import ActorCriticAlgorithmConfig

__all__ = ["ACDevRunner", "ACLocalRunner", "ACRunner"]


class ACRunner(TrainingRunner):
    """Builds an A2C/PPO trainer with a rollout collector, an evaluator and best-model selection.

    Subclasses choose where the envs run (:meth:`env_placement`). See :class:`TrainingRunner`
    for the arguments.
    """

    def env_placement(self, concurrency: int) -> tuple[int, bool]:
        """``(envs, in worker processes?)`` for a ``concurrency`` setting (0: automatic)."""
        raise NotImplementedError

    def setup_trainer(self, config: ActorCriticAlgorithmConfig) -> None:
        """Builds ``self.trainer``: train/eval vector envs, actor-critic model, evaluator, model selection."""
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
        self.trainer = self.trainer_class(config, source, evaluator, model, self.model_selection)

    def _training_env(self) -> Optional[Any]:
        """The vector env of the training rollouts (built before the evaluator)."""
        n_envs, subprocesses = self.env_placement(self.concurrency)
        train_env = build_vector_env(self.env_factory, n_envs, subprocesses)  # checks n_envs first
        print(f"Training with {n_envs} envs {'in worker processes' if subprocesses else 'in this process'}")
        return train_env

    def _training_source(self, config: ActorCriticAlgorithmConfig, model: Any, train_env: Optional[Any]) -> Any:
        """Where the trainer's experience comes from: a rollout collector over ``train_env`` (seeded here)."""
        seeds = [self.seeding.generate_env_instance_seed() for _ in range(train_env.n_envs)]
        return RolloutCollector(train_env, config.n_rollout_steps, seeds)

    def _evaluator(self, config: Optional[Any]) -> Optional[Evaluator]:
        if not config:
            return None
        if isinstance(config, Evaluator):  # built in Python (RunContext): it feeds this run's model selection
            config.model_selection = self.model_selection
            return config
        n_episodes = int(config.get("n_episodes", 8))
        if self.eval_concurrency:
            n_envs, subprocesses = self.env_placement(self.eval_concurrency)
        else:  # one env per episode in this process (one batched forward per step), else one worker per core
            auto_envs, subprocesses = self.env_placement(0)
            n_envs = min(n_episodes, auto_envs if subprocesses else MAX_IN_PROCESS_EVAL_ENVS)
        eval_env = build_vector_env(self.env_factory, n_envs, subprocesses)
        seeds = [self.seeding.generate_env_instance_seed() for _ in range(n_envs)]
        return Factory(Evaluator, ("maze.train.evaluators",)).instantiate(
            config, eval_env=eval_env, model_selection=self.model_selection, seeds=seeds
        )

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


class ACDevRunner(ACRunner):
    """All envs in the main process (fast for cheap envs, easy to debug); ``concurrency: 0`` gives 8 envs."""

    def env_placement(self, concurrency: int) -> tuple[int, bool]:
        """Always in this process."""
        return (concurrency or AUTO_IN_PROCESS_ENVS), False


class ACLocalRunner(ACRunner):
    """Envs in worker processes; ``concurrency: 0`` measures the env and keeps cheap envs in the main process.

    A worker round trip costs more than a cheap env's step (CartPole, Cutting-2D), so with
    ``concurrency: 0`` such envs are stepped in this process and expensive ones get one
    worker process per CPU core. A positive ``concurrency`` always uses that many workers.
    """

    _step_seconds: Optional[float] = None

    def env_placement(self, concurrency: int) -> tuple[int, bool]:
        """``concurrency`` workers, or the automatic choice of :func:`auto_concurrency`."""
        if concurrency:
            return concurrency, True
        if self._step_seconds is None:
            self._step_seconds = measure_step_seconds(
                self.env_factory(), seed=self.seeding.generate_env_instance_seed()
            )
        return auto_concurrency(self._step_seconds)
