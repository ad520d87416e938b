"""PPO: proximal policy optimization (config, trainer, runner)."""

from maze.train.trainers.ppo.config import PPOAlgorithmConfig
from maze.train.trainers.ppo.runner import PPORunner
from maze.train.trainers.ppo.trainer import PPO, clipped_surrogate_loss

__all__ = ["PPO", "PPOAlgorithmConfig", "PPORunner", "clipped_surrogate_loss"]
