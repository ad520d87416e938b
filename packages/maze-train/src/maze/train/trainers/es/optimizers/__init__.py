"""Optimizers of ES: they move the flat parameter vector along the estimated gradient."""

from maze.train.trainers.es.optimizers.adam import Adam
from maze.train.trainers.es.optimizers.base_optimizer import Optimizer
from maze.train.trainers.es.optimizers.sgd import SGD

__all__ = ["Adam", "Optimizer", "SGD"]
