"""The shared pieces of the training runners: the base :class:`TrainingRunner`, env factories, run directories.

Each algorithm's runners live beside its trainer (see :mod:`maze.train.trainers`), e.g.
``maze.train.trainers.actor_critic.actor_critic_runners.ACDevRunner`` for A2C/PPO with
``runner=dev``.
"""

from maze.train.runners.env_factory import EnvFactory
from maze.train.runners.training_runner import TrainingRunner

__all__ = ["EnvFactory", "TrainingRunner"]
