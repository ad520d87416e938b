"""Training runners of the actor-critic trainers (A2C, PPO): in-process (dev) and with worker processes (local)."""

from __future__ import annotations

from typing import Any, Optional

from maze.env.utils.factory import Factory
from maze.train.evaluators.rollout_evaluator import Evaluator
from maze.train.rollout.collector import RolloutCollector
from maze.train.runners.env_factory import (
    AUTO_ENVS,
    MAX_AUTO_EVAL_ENVS,
    build_vector_env,
    measure_step_seconds,
    prefers_worker_processes,
)
from maze.train.runners.training_runner import TrainingRunner
from maze.train.trainers.actor_critic.config import ActorCriticAlgorithmConfig

__all__ = ["ACDevRunner", "ACLocalRunner", "ACRunner"]


class ACRunner(TrainingRunner):
    """Builds an A2C/PPO trainer with a rollout collector, an evaluator and best-model selection.

    The config alone sets the number of envs: ``concurrency`` training envs (0:
    :data:`~maze.train.runners.env_factory.AUTO_ENVS`) and ``eval_concurrency`` evaluation
    envs (0: one per evaluation episode, at most
    :data:`~maze.train.runners.env_factory.MAX_AUTO_EVAL_ENVS`), and so the env steps per
    epoch and the env seeds. Subclasses choose only where the envs run
    (:meth:`in_worker_processes`). One line (:meth:`placement_line`) says where the envs step.
    See :class:`TrainingRunner` for the arguments.
    """

    training_placement: str = ""
    """Where the training envs step, e.g. ``8 envs in this process`` (set while the trainer is built)."""

    evaluation_placement: str = ""
    """Where the evaluation envs step ("": no rollout evaluation built here)."""

    def env_placement(self, concurrency: int) -> tuple[int, bool]:
        """``(envs, in worker processes?)`` of the training envs for a ``concurrency`` setting (0: automatic)."""
        return (concurrency or AUTO_ENVS), self.in_worker_processes(concurrency)

    def in_worker_processes(self, concurrency: int) -> bool:
        """Whether the envs of a ``concurrency`` (or ``eval_concurrency``) setting run in worker processes."""
        raise NotImplementedError

    def setup_trainer(self, config: ActorCriticAlgorithmConfig) -> None:
        """Builds ``self.trainer``: train/eval vector envs, actor-critic model, evaluator, model selection."""
        model = self.composer.torch_actor_critic(self.device)
        if self.input_run is not None:
            self.load_input_model(model)
        self.model_selection = self.best_model_selection(model)
        self.training_placement = self.evaluation_placement = ""
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
        print(self.placement_line())
        self.trainer = self.trainer_class(config, source, evaluator, model, self.model_selection)

    def _training_env(self) -> Optional[Any]:
        """The vector env of the training rollouts (built before the evaluator)."""
        n_envs, subprocesses = self.env_placement(self.concurrency)
        train_env = build_vector_env(self.env_factory, n_envs, subprocesses)  # checks n_envs first
        self.training_placement = f"{n_envs} envs {_where(subprocesses)}"
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
        n_envs = self.eval_concurrency or min(int(config.get("n_episodes", 8)), MAX_AUTO_EVAL_ENVS)
        subprocesses = self.in_worker_processes(self.eval_concurrency)
        eval_env = build_vector_env(self.env_factory, n_envs, subprocesses)
        self.evaluation_placement = f"{n_envs} envs {_where(subprocesses)}"
        seeds = [self.seeding.generate_env_instance_seed() for _ in range(n_envs)]
        return Factory(Evaluator, ("maze.train.evaluators",)).instantiate(
            config, eval_env=eval_env, model_selection=self.model_selection, seeds=seeds
        )

    def placement_line(self) -> str:
        """The one line that says where the training and the evaluation envs step (and why, where timed)."""
        line = f"Training with {self.training_placement}"
        if self.evaluation_placement:
            line += f"; evaluating with {self.evaluation_placement}"
        return line + self.placement_reason()

    def placement_reason(self) -> str:
        """Why the envs step where they do, as a suffix of :meth:`placement_line` ("": the config says it)."""
        return ""

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

    def in_worker_processes(self, concurrency: int) -> bool:
        """Never: every env steps in this process."""
        return False


class ACLocalRunner(ACRunner):
    """Envs in worker processes, one per env; with a setting of 0 cheap envs stay in the main process.

    A worker round trip costs more than a cheap env's step (CartPole, Cutting-2D), so for
    ``concurrency: 0`` (and ``eval_concurrency: 0``) the env is timed once and steps in this
    process when it is cheap. The timing picks only where the envs run: their number is that
    of :class:`ACRunner`, so a run trains the same as with ``runner=dev`` and the same on an
    idle and on a busy machine. A positive setting always uses worker processes.
    """

    _prefers_workers: Optional[bool] = None
    _step_seconds: Optional[float] = None

    def in_worker_processes(self, concurrency: int) -> bool:
        """True for a positive ``concurrency``; for 0 whether the timed env is expensive enough for workers."""
        if concurrency:
            return True
        if self._prefers_workers is None:
            self._prefers_workers = self._time_the_env()
        return self._prefers_workers

    def _time_the_env(self) -> bool:
        """Times one env (its own fixed seed); True when automatic placement puts the envs in worker processes."""
        probe_env = self.env_factory()
        try:
            self._step_seconds = measure_step_seconds(probe_env)
        finally:
            probe_env.close()
        return prefers_worker_processes(self._step_seconds)

    def placement_reason(self) -> str:
        """The timed env step and how it compares to a worker round trip, where a setting of 0 timed the env."""
        if self._step_seconds is None:
            return ""
        cost = "costlier" if self._prefers_workers else "cheaper"
        return f" (placed automatically: an env step takes {self._step_seconds * 1e3:.3f} ms, {cost} than a worker round trip)"


def _where(subprocesses: bool) -> str:
    """Where a vector env's envs step, for the placement line."""
    return "in worker processes" if subprocesses else "in this process"
