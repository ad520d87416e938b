"""SGD with momentum for ES."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import torch
from maze.train.bounds import Bounds
from maze.train.trainers.es.optimizers.base_optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent with momentum: ``v = m v + (1 - m) g``, ``theta -= step_size v``.

    Args:
        step_size: The step size.
        momentum: Decay of the running gradient average (0: plain SGD).
    """

    def __init__(
        self, step_size: Annotated[float, Bounds(ge=0)], momentum: Annotated[float, Bounds(ge=0, lt=1)] = 0.9
    ) -> None:
        super().__init__(step_size)
        self.momentum = float(momentum)
        self.velocity: Optional[torch.Tensor] = None

    def _step(self, theta: torch.Tensor, gradient: torch.Tensor) -> None:
        if self.velocity is None:
            self.velocity = torch.zeros_like(theta)
        self.velocity.mul_(self.momentum).add_(gradient, alpha=1.0 - self.momentum)
        theta.sub_(self.velocity, alpha=self.step_size)

    def state_dict(self) -> dict[str, Any]:
        """The velocity (empty before the first step)."""
        return {} if self.velocity is None else {"velocity": self.velocity.clone()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restores the velocity."""
        self.velocity = state["velocity"].clone() if "velocity" in state else None
