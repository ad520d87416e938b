"""Evolution strategies (ES): trainer, config, events, shared noise table, optimizers, rollout distribution, runners."""

from maze.train.trainers.es.es_algorithm_config import ESAlgorithmConfig
from maze.train.trainers.es.es_distributed_rollouts import ESAbortException, ESDistributedRollouts, ESRolloutResult
from maze.train.trainers.es.es_events import ESEvents
from maze.train.trainers.es.es_rollout_worker import ESRolloutWorkerWrapper, ESWorkerFactory, TorchPolicyFactory
from maze.train.trainers.es.es_runners import ESDevRunner, ESLocalRunner, ESMasterRunner
from maze.train.trainers.es.es_shared_noise_table import SharedNoiseTable
from maze.train.trainers.es.es_trainer import ESTrainer
from maze.train.trainers.es.es_utils import get_flat_parameters, set_flat_parameters
from maze.train.trainers.es.es_vector_rollouts import ESDummyDistributedRollouts, ESSubprocDistributedRollouts
from maze.train.trainers.es.optimizers import SGD, Adam, Optimizer

__all__ = [
    "Adam",
    "ESAbortException",
    "ESAlgorithmConfig",
    "ESDevRunner",
    "ESDistributedRollouts",
    "ESDummyDistributedRollouts",
    "ESEvents",
    "ESLocalRunner",
    "ESMasterRunner",
    "ESRolloutResult",
    "ESRolloutWorkerWrapper",
    "ESSubprocDistributedRollouts",
    "ESTrainer",
    "ESWorkerFactory",
    "Optimizer",
    "SGD",
    "SharedNoiseTable",
    "TorchPolicyFactory",
    "get_flat_parameters",
    "set_flat_parameters",
]
