"""Trainers (A2C, PPO, ES), rollout collection, evaluation, training runners and TensorBoard logging.

Submodules are imported on first use (``maze.train.trainers``, ``maze.train.runners``, ...),
so ``import maze.train`` stays cheap; the names below are re-exported lazily.
"""

from __future__ import annotations

from importlib.metadata import version as _version

from maze.env.utils.lazy_exports import lazy_getattr

__version__ = _version("maze-train")

_EXPORTS = {
    "A2C": "maze.train.trainers",
    "A2CAlgorithmConfig": "maze.train.trainers",
    "PPO": "maze.train.trainers",
    "PPOAlgorithmConfig": "maze.train.trainers",
    "ActorCritic": "maze.train.trainers",
    "BestModelSelection": "maze.train.trainers",
    "TrainingResult": "maze.train.trainers",
    "RolloutCollector": "maze.train.rollout",
    "RolloutEvaluator": "maze.train.evaluators",
    "IMPALA": "maze.train.trainers.impala",
    "ImpalaAlgorithmConfig": "maze.train.trainers.impala",
    "ImpalaDevRunner": "maze.train.runners.legacy_names",
    "ImpalaLocalRunner": "maze.train.runners.legacy_names",
    "SequentialDistributedActors": "maze.train.distributed",
    "SubprocDistributedActors": "maze.train.distributed",
    "ReduceScaleValueTransform": "maze.train.value_transform",
    "ACDevRunner": "maze.train.runners.legacy_names",
    "ACLocalRunner": "maze.train.runners.legacy_names",
    "TrainingRunner": "maze.train.runners",
    "ActorCriticRunner": "maze.train.runners.actor_critic_runner",
    "A2CRunner": "maze.train.trainers.a2c",
    "PPORunner": "maze.train.trainers.ppo",
    "ImpalaRunner": "maze.train.trainers.impala.runner",
    "SACRunner": "maze.train.trainers.sac.runner",
    "ESRunner": "maze.train.trainers.es.runner",
    "BCRunner": "maze.train.trainers.bc.runner",
    "compute_gae": "maze.train.returns",
    "compute_returns": "maze.train.returns",
    "compute_linked_gae": "maze.train.returns",
    "LogStatsWriterTensorboard": "maze.train.tensorboard",
    "ESTrainer": "maze.train.trainers.es",
    "ESAlgorithmConfig": "maze.train.trainers.es",
    "ESDevRunner": "maze.train.runners.legacy_names",
    "ESLocalRunner": "maze.train.runners.legacy_names",
    "SharedNoiseTable": "maze.train.trainers.es",
    "read_scalars": "maze.train.tensorboard",
    "read_texts": "maze.train.tensorboard",
    "SAC": "maze.train.trainers.sac",
    "SACAlgorithmConfig": "maze.train.trainers.sac",
    "SACEvents": "maze.train.trainers.sac",
    "SACDevRunner": "maze.train.runners.legacy_names",
    "BaseReplayBuffer": "maze.train.replay",
    "UniformReplayBuffer": "maze.train.replay",
    "RolloutReplayBuffer": "maze.train.replay",
    "BaseDistributedWorkersWithBuffer": "maze.train.replay",
    "DummyDistributedWorkersWithBuffer": "maze.train.replay",
    "SubprocDistributedWorkersWithBuffer": "maze.train.replay",
    "BCTrainer": "maze.train.trainers.bc",
    "BCAlgorithmConfig": "maze.train.trainers.bc",
    "BCLoss": "maze.train.trainers.bc",
    "BCValidationEvaluator": "maze.train.trainers.bc",
    "ImitationEvents": "maze.train.trainers.bc",
    "BCDevRunner": "maze.train.runners.legacy_names",
    "BCLocalRunner": "maze.train.runners.legacy_names",
    "RolloutGenerator": "maze.train.rollout",
    "setup_logging": "maze.train.logging_setup",
}

__all__ = ["__version__", *_EXPORTS]

__getattr__ = lazy_getattr("maze.train", _EXPORTS)
