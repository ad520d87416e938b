"""ESRunner: evolution strategies on any backend (``algorithm=es``)."""

from __future__ import annotations

import logging
from typing import Annotated, Any, Optional

from maze.train.backends.base import ESRolloutsRequest
from maze.train.bounds import Bounds
from maze.train.distributed.es.noise_table import SharedNoiseTable
from maze.train.distributed.es.rollouts import ESDistributedRollouts
from maze.train.distributed.es.worker import ESWorkerFactory
from maze.train.distributed.policy_factory import TorchPolicyFactory
from maze.train.evaluators.rollout_evaluator import RolloutEvaluator
from maze.train.runners.training_runner import TrainingRunner
from maze.train.trainers.es.config import ESAlgorithmConfig

logger = logging.getLogger(__name__)

__all__ = ["ESRunner"]


class ESRunner(TrainingRunner):
    """Evolution strategies: the trainer and its noise table here, the training pairs where the backend plays them.

    Prints the three progress banners (``Init Shared Noise Table``, ``Trainer Setup``,
    ``Run Trainer``), builds the shared noise table, the policy, a :class:`RolloutEvaluator`
    (deterministic, ``n_eval_rollouts`` episodes with the same seeds at every evaluation) and
    :class:`BestModelSelection`. The backend plays the training pairs (``runner=dev``: one
    worker in this process; ``local``: ``n_train_workers`` worker processes sharing the noise
    table; ``ray``: ``n_train_workers`` Ray actors, each node building the table once from its
    seed) and places the evaluation envs (``local``: ``n_eval_workers`` worker processes; the
    others in this process).

    Args:
        n_eval_rollouts: Evaluation episodes per iteration (0: select on the training return).
        shared_noise_table_size: Number of float32 values of the noise table (at most what ``/dev/shm`` has free).
        n_train_workers: Workers playing training pairs, one pair each per round (``runner=dev``: one).
        n_eval_workers: Worker processes of the evaluation envs with ``runner=local`` (0: in this process).
        **kwargs: Keys of :class:`TrainingRunner` (``state_dict_dump_file``, ``normalization_samples``, ...).
    """

    default_trainer = "maze.train.trainers.es.ESTrainer"
    acts_in_worker_processes = True

    def __init__(
        self,
        *args: Any,
        n_eval_rollouts: Annotated[int, Bounds(ge=0)] = 10,
        shared_noise_table_size: Annotated[int, Bounds(ge=1)] = 100_000_000,
        n_train_workers: Annotated[int, Bounds(ge=1)] = 4,
        n_eval_workers: Annotated[int, Bounds(ge=0)] = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.n_eval_rollouts = n_eval_rollouts
        self.shared_noise_table_size = shared_noise_table_size
        self.n_train_workers = n_train_workers
        self.n_eval_workers = n_eval_workers
        self.shared_noise: Optional[SharedNoiseTable] = None

    def setup_trainer(self, config: ESAlgorithmConfig) -> None:
        """Builds the noise table, the policy (warm-started from ``input_dir``), evaluator and trainer."""
        logger.info("********** Init Shared Noise Table **********")
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
        logger.info("********** Trainer Setup **********")
        self.model_selection = self.best_model_selection(policy)
        evaluator = None
        if self.n_eval_rollouts:
            eval_env = self.backend.es_evaluation_envs(self.env_factory, self.n_eval_rollouts, self.n_eval_workers)
            seeds = [self.seeding.generate_env_instance_seed() for _ in range(eval_env.n_envs)]
            evaluator = RolloutEvaluator(eval_env, self.n_eval_rollouts, self.model_selection, True, seeds)
        self.trainer = self.trainer_class(config, policy, self.shared_noise, evaluator, self.model_selection)

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
        """Where the training pairs are played: the backend's ES workers."""
        return self.backend.es_rollouts(ESRolloutsRequest(self.worker_factory, self.n_train_workers, self.seeding))

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
        logger.info("********** Run Trainer **********")
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
