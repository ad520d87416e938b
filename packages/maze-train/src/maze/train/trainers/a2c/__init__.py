"""A2C: synchronous advantage actor-critic (config, trainer, runner)."""

from maze.train.trainers.a2c.config import A2CAlgorithmConfig
from maze.train.trainers.a2c.runner import A2CRunner
from maze.train.trainers.a2c.trainer import A2C

__all__ = ["A2C", "A2CAlgorithmConfig", "A2CRunner"]
