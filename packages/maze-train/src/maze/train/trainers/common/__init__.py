"""Pieces every trainer shares: algorithm configs, model selection."""

from maze.train.trainers.common.config import AlgorithmConfig
from maze.train.trainers.common.model_selection import BestModelSelection, ModelSelectionBase

__all__ = ["AlgorithmConfig", "BestModelSelection", "ModelSelectionBase"]
