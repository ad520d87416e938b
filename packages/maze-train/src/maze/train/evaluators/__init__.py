"""Evaluators: score a policy (and feed model selection), in the training process or in the background."""

from maze.train.evaluators.background import BackgroundEvaluation
from maze.train.evaluators.rollout_evaluator import Evaluator, RolloutEvaluator

__all__ = ["BackgroundEvaluation", "Evaluator", "RolloutEvaluator"]
