"""Trainers (A2C, PPO, ES), rollout collection, evaluation, training runners and TensorBoard logging.

Submodules are imported on first use (``maze.train.trainers``, ``maze.train.runners``, ...),
so ``import maze.train`` stays cheap; the names below are re-exported lazily.
"""

from __future__ import annotations

from importlib.metadata import version as _version

from maze.train._lazy import lazy_getattr

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
    "ImpalaDevRunner": "maze.train.trainers.impala.impala_runners",
    "ImpalaLocalRunner": "maze.train.trainers.impala.impala_runners",
    "SequentialDistributedActors": "maze.train.distributed",
    "SubprocDistributedActors": "maze.train.distributed",
    "ReduceScaleValueTransform": "maze.train.value_transform",
    "ACDevRunner": "maze.train.trainers.actor_critic.actor_critic_runners",
    "ACLocalRunner": "maze.train.trainers.actor_critic.actor_critic_runners",
    "TrainingRunner": "maze.train.runners",
    "compute_gae": "maze.train.returns",
    "compute_returns": "maze.train.returns",
    "compute_linked_gae": "maze.train.returns",
    "LogStatsWriterTensorboard": "maze.train.tensorboard",
    "ESTrainer": "maze.train.trainers.es",
    "ESAlgorithmConfig": "maze.train.trainers.es",
    "ESDevRunner": "maze.train.trainers.es",
    "ESLocalRunner": "maze.train.trainers.es",
    "SharedNoiseTable": "maze.train.trainers.es",
    "read_scalars": "maze.train.tensorboard",
    "read_texts": "maze.train.tensorboard",
    "SAC": "maze.train.trainers.sac",
    "SACAlgorithmConfig": "maze.train.trainers.sac",
    "SACEvents": "maze.train.trainers.sac",
    "SACDevRunner": "maze.train.trainers.sac.sac_runners",
    "BaseReplayBuffer": "maze.train.replay",
    "UniformReplayBuffer": "maze.train.replay",
    "RolloutReplayBuffer": "maze.train.replay",
    "BaseDistributedWorkersWithBuffer": "maze.train.replay",
    "DummyDistributedWorkersWithBuffer": "maze.train.replay",
    "SubprocDistributedWorkersWithBuffer": "maze.train.replay",
    "BCTrainer": "maze.train.trainers.imitation",
    "BCAlgorithmConfig": "maze.train.trainers.imitation",
    "BCLoss": "maze.train.trainers.imitation",
    "BCValidationEvaluator": "maze.train.trainers.imitation",
    "ImitationEvents": "maze.train.trainers.imitation",
    "BCDevRunner": "maze.train.trainers.imitation",
    "BCLocalRunner": "maze.train.trainers.imitation",
    "RolloutGenerator": "maze.train.rollout",
    "setup_logging": "maze.train.logging_setup",
}

__all__ = ["__version__", *_EXPORTS]

__getattr__ = lazy_getattr("maze.train", _EXPORTS)
