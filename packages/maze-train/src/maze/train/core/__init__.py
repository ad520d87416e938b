"""What every trainer shares, written once: the core of maze-train's trainers.

Algorithm configs and their validation, the epoch loop, budgets, checkpoints, resumable
training state, best-model selection, and the actor-critic loop that A2C, PPO and IMPALA
build on (:mod:`maze.train.core.actor_critic`).

Algorithm folders (:mod:`maze.train.trainers`) import from here, never from each other.
"""

from maze.train.core.config import AlgorithmConfig
from maze.train.core.model_selection import BestModelSelection, ModelSelectionBase

__all__ = ["AlgorithmConfig", "BestModelSelection", "ModelSelectionBase"]
