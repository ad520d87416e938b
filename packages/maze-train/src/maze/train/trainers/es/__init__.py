"""Evolution strategies (ES): trainer, config, events, shared noise table, optimizers, rollout distribution, runners."""

from maze.train.distributed.es.noise_table import SharedNoiseTable
from maze.train.distributed.es.parameters import get_flat_parameters, set_flat_parameters
from maze.train.distributed.es.rollouts import ESAbortException, ESDistributedRollouts, ESRolloutResult
from maze.train.distributed.es.vector_rollouts import ESDummyDistributedRollouts, ESSubprocDistributedRollouts
from maze.train.distributed.es.worker import ESRolloutWorkerWrapper, ESWorkerFactory
from maze.train.distributed.policy_factory import TorchPolicyFactory
from maze.train.trainers.es.config import ESAlgorithmConfig
from maze.train.trainers.es.events import ESEvents
from maze.train.trainers.es.optimizers import SGD, Adam, Optimizer
from maze.train.trainers.es.runner import ESRunner
from maze.train.trainers.es.trainer import ESTrainer

__all__ = [
    "Adam",
    "ESAbortException",
    "ESAlgorithmConfig",
    "ESDistributedRollouts",
    "ESDummyDistributedRollouts",
    "ESEvents",
    "ESRunner",
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
