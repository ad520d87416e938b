"""Optimizer: the interface of the ES optimizers (they move a flat parameter vector along a gradient)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Annotated, Any

import torch
from maze.train.bounds import Bounds

__all__ = ["Optimizer"]


class Optimizer(ABC):
    """Abstract base of the optimizers used with ES.

    An optimizer minimizes: :meth:`update` moves ``theta`` against ``gradient`` (ES passes
    the negated ascent direction plus the L2 term).

    Args:
        step_size: The step size (learning rate; 0 leaves the parameters as they are).
    """

    def __init__(self, step_size: Annotated[float, Bounds(ge=0)]) -> None:
        self.step_size = float(step_size)

    def update(self, theta: torch.Tensor, gradient: torch.Tensor) -> float:
        """Updates ``theta`` in place by one step.

        Args:
            theta: ``[n_parameters]`` float32 parameters.
            gradient: ``[n_parameters]`` gradient of the loss at ``theta``.

        Returns:
            The update ratio ``|step| / |theta|`` (before the step).
        """
        before = theta.clone()
        self._step(theta, gradient)
        return float(torch.linalg.vector_norm(theta - before) / (torch.linalg.vector_norm(before) + 1e-12))

    @abstractmethod
    def _step(self, theta: torch.Tensor, gradient: torch.Tensor) -> None:
        """Moves ``theta`` in place."""

    @abstractmethod
    def state_dict(self) -> dict[str, Any]:
        """The optimizer state (tensors only)."""

    @abstractmethod
    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restores a state of :meth:`state_dict`."""
