"""BCValidationEvaluator: scores a policy by its behavioural cloning loss on held-out recorded sub-steps."""

from __future__ import annotations

from typing import Any, Optional

import torch
from maze.env.log_stats.global_state import get_stats_logger
from maze.env.log_stats.log_stats import LogStats
from maze.train.evaluators.rollout_evaluator import Evaluator
from maze.train.trainers.bc.data import ImitationData
from maze.train.trainers.bc.events import ImitationEvents, ImitationStats
from maze.train.trainers.bc.loss import BCLoss, record_loss_output

__all__ = ["BCValidationEvaluator"]

VALIDATION_CHUNK = 4096
"""Validation items per forward pass."""


class BCValidationEvaluator(Evaluator):
    """Computes the BC loss and metrics of a policy on a validation set and logs them as ``ImitationEvents``.

    Values are means over all validation items of a policy network; the loss is the sum of
    the networks' mean losses (as in training). The score is the negative loss, so that a
    lower loss is a better model (``-> new overall best model -0.15179!``).

    Args:
        data: The validation items.
        loss: The loss (its entropy bonus counts as in training).
        model_selection: Receives the score of every evaluation (None: nobody).
        logging_prefix: Prefix of the written statistics.
    """

    def __init__(
        self,
        data: ImitationData,
        loss: BCLoss,
        model_selection: Optional[Any] = None,
        logging_prefix: str = "eval",
    ) -> None:
        self.data = data
        self.loss = loss
        self.model_selection = model_selection
        self.logging_prefix = logging_prefix
        self.last_stats: LogStats = {}
        self.last_loss = float("nan")

    def evaluate(self, policy: Any) -> float:
        """Runs the policy on every validation item, writes the statistics and updates model selection.

        Args:
            policy: The TorchPolicy (in eval mode, so that dropout is off).

        Returns:
            The negative validation loss.
        """
        stats = ImitationStats()
        with torch.no_grad():
            for chunk in self.data.chunks(VALIDATION_CHUNK):
                for key, rows in chunk.items():
                    logits = policy.compute_logits_dict(rows.observations, rows.actor_id)
                    result = self.loss(rows.actor_id[0], logits, rows.actions)
                    record_loss_output(stats, key, result, weight=len(next(iter(rows.actions.values()))))
        self.last_loss = sum(stats.mean(ImitationEvents.policy_loss, step_key=key) for key in self.data.keys)
        self.last_stats = stats.reduce()
        get_stats_logger(self.logging_prefix).log_stats(self.last_stats)
        score = -self.last_loss
        if self.model_selection is not None:
            self.model_selection.update(score)
        return score
