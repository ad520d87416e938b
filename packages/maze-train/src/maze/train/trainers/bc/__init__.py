"""Imitation learning: behavioural cloning (BC) from recorded trajectories."""

from maze.train.trainers.bc.config import BCAlgorithmConfig
from maze.train.trainers.bc.data import ImitationData, NetworkRows
from maze.train.trainers.bc.events import ImitationEvents, ImitationStats
from maze.train.trainers.bc.loss import BCLoss, BCLossOutput
from maze.train.trainers.bc.runner import BCRunner
from maze.train.trainers.bc.trainer import BCTrainer
from maze.train.trainers.bc.validation import BCValidationEvaluator

__all__ = [
    "BCAlgorithmConfig",
    "BCLoss",
    "BCLossOutput",
    "BCRunner",
    "BCTrainer",
    "BCValidationEvaluator",
    "ImitationData",
    "ImitationEvents",
    "ImitationStats",
    "NetworkRows",
]
