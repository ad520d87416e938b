"""Model selection: keep the model with the best evaluation score on disk."""

from __future__ import annotations

import logging
import math
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Optional, Union

from maze.perception.agent.torch_model import TorchModel
from maze.perception.serialization import save_state_dict

logger = logging.getLogger(__name__)

__all__ = ["BestModelSelection", "ModelSelectionBase"]


class ModelSelectionBase(ABC):
    """Receives the score of every evaluation."""

    @abstractmethod
    def update(self, reward: float, state_dict: Optional[dict[str, Any]] = None) -> bool:
        """Takes the score of the latest evaluation; returns True if it is the best so far.

        Args:
            reward: The evaluation's score.
            state_dict: The weights that were evaluated, where they are no longer the model's
                current ones (a background evaluation); None: the model's current weights.
        """


class BestModelSelection(ModelSelectionBase):
    """Saves the model's state dict whenever the evaluation score improves.

    Prints ``-> new overall best model <score>!`` on every improvement. The write is
    atomic: a run killed while saving keeps the previous best model. A non-finite score is
    never an improvement, and a model with non-finite parameters is never written (saving
    raises :class:`~maze.env.utils.finite.NonFiniteValueError` naming the parameter).

    Args:
        dump_file: Where the best state dict goes (``state_dict.pt``); None keeps nothing on disk.
        model: The model to save (its latest weights are the trainer's resumable state, see
            :mod:`maze.train.core.training_state`).
        best_reward: The best score so far (when resuming a run).
    """

    def __init__(
        self,
        dump_file: Optional[Union[str, Path]],
        model: Optional[TorchModel],
        best_reward: float = float("-inf"),
    ) -> None:
        self.dump_file = None if dump_file is None else Path(dump_file)
        self.model = model
        self.best_reward = best_reward
        self.updates = 0
        self.last_improvement = 0
        """The update count at the last improvement."""

    def update(self, reward: float, state_dict: Optional[dict[str, Any]] = None) -> bool:
        """Saves the model (or the evaluated ``state_dict``) if ``reward`` beats the best score so far.

        Returns:
            True on an improvement.
        """
        self.updates += 1
        if not math.isfinite(reward):
            logger.warning(f"-> evaluation score {reward} is not finite: never a best model")
            return False
        improved = reward > self.best_reward
        if improved:
            self.best_reward = float(reward)
            self.last_improvement = self.updates
            logger.info(f"-> new overall best model {reward:.5f}!")
            if self.dump_file is not None and self.model is not None:
                save_state_dict(self.model.state_dict() if state_dict is None else state_dict, self.dump_file)
        return improved
