"""ES training runners: ``ESMasterRunner`` with ``ESDevRunner`` (in-process rollouts) and ``ESLocalRunner`` (worker processes)."""

from __future__ import annotations

from typing import Annotated, Any, Optional

from maze.env.vector.subproc import SubprocVectorEnv
from maze.train.bounds import Bounds
from maze.train.evaluators.rollout_evaluator import RolloutEvaluator
from maze.train.runners.env_factory import MAX_AUTO_EVAL_ENVS, build_vector_env
from maze.train.runners.training_runner import TrainingRunner
from maze.train.trainers.es.es_algorithm_config import ESAlgorithmConfig
from maze.train.trainers.es.es_distributed_rollouts import ESDistributedRollouts
from maze.train.trainers.es.es_rollout_worker import ESWorkerFactory, TorchPolicyFactory
from maze.train.trainers.es.es_shared_noise_table import SharedNoiseTable
from maze.train.trainers.es.es_vector_rollouts import ESDummyDistributedRollouts, ESSubprocDistributedRollouts

__all__ = ["ESDevRunner", "ESLocalRunner", "ESMasterRunner"]

ES_TRAINER = "maze.train.trainers.es.ESTrainer"


class ESMasterRunner(TrainingRunner):
    """Baseclass of ES training master runners (serves as basis for dev and other runners).

    Prints the three progress banners (``Init Shared Noise Table``, ``Trainer Setup``,
    ``Run Trainer``), builds the shared noise table, the policy, an in-process
    :class:`RolloutEvaluator` (deterministic, ``n_eval_rollouts`` episodes with the same
    seeds at every evaluation) and :class:`BestModelSelection`; subclasses choose where the
    training rollouts run (:meth:`create_distributed_rollouts`).

    Args:
        n_eval_rollouts: Evaluation episodes per iteration (0: select on the training return).
        shared_noise_table_size: Number of float32 values of the noise table (at most what ``/dev/shm`` has free).
        trainer_class: The trainer (ESTrainer).
        **kwargs: Keys of :class:`TrainingRunner` (``state_dict_dump_file``, ``normalization_samples``, ...).
    """

    def __init__(
        self,
        n_eval_rollouts: Annotated[int, Bounds(ge=0)] = 10,
        shared_noise_table_size: Annotated[int, Bounds(ge=1)] = 100_000_000,
        trainer_class: Any = ES_TRAINER,
        **kwargs: Any,
    ) -> None:
        super().__init__(trainer_class, **kwargs)
        self.n_eval_rollouts = n_eval_rollouts
        self.shared_noise_table_size = shared_noise_table_size
        self.shared_noise: Optional[SharedNoiseTable] = None

    def setup_trainer(self, config: ESAlgorithmConfig) -> None:
        """Builds the noise table, the policy (warm-started from ``input_dir``), evaluator and trainer."""
        print("********** Init Shared Noise Table **********")
        self.shared_noise = SharedNoiseTable(
            self.shared_noise_table_size, seed=self.seeding.generate_agent_instance_seed()
        )
        try:
            self._setup_trainer(config)
        except BaseException:
            self.shared_noise.close()
            raise

    def _setup_trainer(self, config: ESAlgorithmConfig) -> None:
        policy = self.composer.torch_policy(self.device)
        policy.seed(self.seeding.generate_agent_instance_seed())
        if self.input_run is not None:
            self.load_input_model(policy)
        print("********** Trainer Setup **********")
        self.model_selection = self.best_model_selection(policy)
        evaluator = None
        if self.n_eval_rollouts:
            eval_env = self._eval_env()
            seeds = [self.seeding.generate_env_instance_seed() for _ in range(eval_env.n_envs)]
            evaluator = RolloutEvaluator(eval_env, self.n_eval_rollouts, self.model_selection, True, seeds)
        self.trainer = self.trainer_class(config, policy, self.shared_noise, evaluator, self.model_selection)

    def _eval_env(self) -> Any:
        """The evaluation envs: in this process, one per episode (batched forward passes)."""
        return build_vector_env(self.env_factory, min(self.n_eval_rollouts, MAX_AUTO_EVAL_ENVS), False)

    def worker_factory(self, torch_threads: Optional[int] = None) -> ESWorkerFactory:
        """Builds the rollout workers (env, own policy copy, shared noise, policy wrapper)."""
        return ESWorkerFactory(
            self.env_factory,
            TorchPolicyFactory(self.model_config, self.spaces_config),
            self.shared_noise,
            self.algorithm_config.policy_wrapper,
            torch_threads,
        )

    def create_distributed_rollouts(self) -> ESDistributedRollouts:
        """Where the training rollouts run."""
        raise NotImplementedError

    def run(
        self, n_epochs: Optional[int] = None, distributed_rollouts: Optional[ESDistributedRollouts] = None
    ) -> float:
        """Trains (after evaluating a warm-started model once) and writes ``training_summary.json``.

        Args:
            n_epochs: Iterations (None: ``algorithm.n_epochs``).
            distributed_rollouts: Where the rollouts run (None: :meth:`create_distributed_rollouts`).

        Returns:
            The best evaluation score.
        """
        print("********** Run Trainer **********")
        rollouts = None
        try:
            rollouts = self.create_distributed_rollouts() if distributed_rollouts is None else distributed_rollouts
            return self.train_and_report(lambda: self.trainer.train(n_epochs, rollouts))
        finally:
            if rollouts is not None:
                rollouts.close()
            if self.trainer.evaluator is not None:
                self.trainer.evaluator.eval_env.close()
            self.shared_noise.close()
            self.graph_drawing.join()
            self.close()


class ESDevRunner(ESMasterRunner):
    """Runner config for single-threaded training, based on ESDummyDistributedRollouts."""

    def create_distributed_rollouts(self) -> ESDistributedRollouts:
        """One in-process worker."""
        return ESDummyDistributedRollouts(self.worker_factory(), self.seeding.generate_agent_instance_seed())


class ESLocalRunner(ESMasterRunner):
    """ES with the training rollouts in worker processes on this machine.

    Args:
        n_train_workers: Worker processes playing training pairs (one pair each per round).
        n_eval_workers: Worker processes of the evaluation envs (0: evaluate in this process).
        start_method: ``forkserver``, ``spawn`` or ``fork``.
        **kwargs: Keys of :class:`ESMasterRunner`.
    """

    def __init__(
        self,
        n_train_workers: Annotated[int, Bounds(ge=1)] = 4,
        n_eval_workers: Annotated[int, Bounds(ge=0)] = 1,
        start_method: str = "forkserver",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.n_train_workers = n_train_workers
        self.n_eval_workers = n_eval_workers
        self.start_method = start_method

    def worker_start_method(self) -> Optional[str]:
        """The worker processes' start method (a fork server starts early, while the noise table is built)."""
        return self.start_method if self.n_train_workers or self.n_eval_workers else None

    def _eval_env(self) -> Any:
        if not self.n_eval_workers:
            return super()._eval_env()
        return SubprocVectorEnv([self.env_factory] * self.n_eval_workers, start_method=self.start_method)

    def create_distributed_rollouts(self) -> ESDistributedRollouts:
        """``n_train_workers`` worker processes (one torch thread each)."""
        seeds = [self.seeding.generate_agent_instance_seed() for _ in range(self.n_train_workers)]
        return ESSubprocDistributedRollouts(self.worker_factory(torch_threads=1), seeds, self.start_method)
