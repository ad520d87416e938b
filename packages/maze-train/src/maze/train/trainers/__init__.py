"""Trainers: A2C and PPO (actor-critic), their configs and shared pieces."""

from maze.train.trainers.a2c import A2C, A2CAlgorithmConfig
from maze.train.trainers.actor_critic.trainer import ActorCritic, TrainingResult
from maze.train.trainers.common import AlgorithmConfig, BestModelSelection, ModelSelectionBase
from maze.train.trainers.ppo import PPO, PPOAlgorithmConfig

__all__ = [
    "A2C",
    "A2CAlgorithmConfig",
    "ActorCritic",
    "AlgorithmConfig",
    "BestModelSelection",
    "ModelSelectionBase",
    "PPO",
    "PPOAlgorithmConfig",
    "TrainingResult",
]
