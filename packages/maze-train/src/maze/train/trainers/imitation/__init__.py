"""Imitation learning: behavioural cloning (BC) from recorded trajectories."""

from maze.train.trainers.imitation.bc_algorithm_config import BCAlgorithmConfig
from maze.train.trainers.imitation.bc_data import ImitationData, NetworkRows
from maze.train.trainers.imitation.bc_loss import BCLoss, BCLossOutput
from maze.train.trainers.imitation.bc_runners import BCDevRunner, BCLocalRunner, BCRunner
from maze.train.trainers.imitation.bc_trainer import BCTrainer
from maze.train.trainers.imitation.bc_validation import BCValidationEvaluator
from maze.train.trainers.imitation.events import ImitationEvents, ImitationStats

__all__ = [
    "BCAlgorithmConfig",
    "BCDevRunner",
    "BCLocalRunner",
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
