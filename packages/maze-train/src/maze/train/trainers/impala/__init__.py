"""IMPALA: the learner, its config and events, and V-trace."""

from maze.train.trainers.impala.config import ImpalaAlgorithmConfig
from maze.train.trainers.impala.events import ImpalaEvents
from maze.train.trainers.impala.trainer import IMPALA

__all__ = ["IMPALA", "ImpalaAlgorithmConfig", "ImpalaEvents"]
