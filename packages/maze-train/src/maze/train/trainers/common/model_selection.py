"""Model selection: keep the model with the best evaluation score on disk."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Callable, Optional, Union

from maze.perception.agent.torch_model import TorchModel
from maze.perception.serialization import save_state_dict

__all__ = ["BestModelSelection", "ModelSelectionBase"]


class ModelSelectionBase(ABC):
    """Receives the score of every evaluation."""

    @abstractmethod
    def update(self, reward: float) -> bool:
        """Takes the score of the latest evaluation; returns True if it is the best so far."""


class BestModelSelection(ModelSelectionBase):
    """Saves the model's state dict whenever the evaluation score improves.

    Prints ``-> new overall best model <score>!`` on every improvement. The write is
    atomic: a run killed while saving keeps the previous best model.

    Args:
        dump_file: Where the best state dict goes (``state_dict.pt``); None keeps nothing on disk.
        model: The model to save.
        dump_interval: Also save the current model every ``dump_interval`` updates to
            ``last_<dump_file name>`` (None: never).
        best_reward: The best score so far (when resuming a run).
        on_improvement: Called after the best model was saved (e.g. to save the optimizer state).
    """

    def __init__(
        self,
        dump_file: Optional[Union[str, Path]],
        model: Optional[TorchModel],
        dump_interval: Optional[int] = None,
        best_reward: float = float("-inf"),
        on_improvement: Optional[Callable[[], None]] = None,
    ) -> None:
        self.dump_file = None if dump_file is None else Path(dump_file)
        self.model = model
        self.dump_interval = dump_interval
        self.best_reward = best_reward
        self.on_improvement = on_improvement
        self.updates = 0
        self.last_improvement = 0
        """The update count at the last improvement."""

    def update(self, reward: float) -> bool:
        """Saves the model if ``reward`` beats the best score so far.

        Returns:
            True on an improvement.
        """
        self.updates += 1
        improved = reward > self.best_reward
        if improved:
            self.best_reward = float(reward)
            self.last_improvement = self.updates
            print(f"-> new overall best model {reward:.5f}!")
            if self.dump_file is not None and self.model is not None:
                save_state_dict(self.model.state_dict(), self.dump_file)
            if self.on_improvement is not None:
                self.on_improvement()
        if self.dump_interval and self.updates % self.dump_interval == 0 and self.dump_file and self.model:
            save_state_dict(self.model.state_dict(), self.dump_file.with_name(f"last_{self.dump_file.name}"))
        return improved
