"""Evaluators: score a policy (and feed model selection)."""

from maze.train.evaluators.rollout_evaluator import Evaluator, RolloutEvaluator

__all__ = ["Evaluator", "RolloutEvaluator"]
