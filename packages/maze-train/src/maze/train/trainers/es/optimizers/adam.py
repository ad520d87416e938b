"""Adam for ES: :class:`maze.train.optim.Adam` applied to the flat parameter vector."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import torch
from maze.train.bounds import Bounds
from maze.train.optim import Adam as _TorchAdam
from maze.train.trainers.es.optimizers.base_optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (Kingma & Ba 2015, with bias correction) on the flat ES parameter vector.

    Args:
        step_size: The step size (learning rate).
        beta1: Decay of the first moment estimate.
        beta2: Decay of the second moment estimate.
        epsilon: Added to the denominator for numerical stability.
    """

    def __init__(
        self,
        step_size: Annotated[float, Bounds(ge=0)],
        beta1: Annotated[float, Bounds(ge=0, lt=1)] = 0.9,
        beta2: Annotated[float, Bounds(ge=0, lt=1)] = 0.999,
        epsilon: Annotated[float, Bounds(gt=0)] = 1e-8,
    ) -> None:
        super().__init__(step_size)
        self.betas = (float(beta1), float(beta2))
        self.epsilon = float(epsilon)
        self._adam: Optional[_TorchAdam] = None
        self._pending_state: Optional[dict[str, Any]] = None

    def _step(self, theta: torch.Tensor, gradient: torch.Tensor) -> None:
        if self._adam is None or self._adam.parameters[0] is not theta:  # a new vector takes over the moments
            state = self.state_dict()
            self._adam = _TorchAdam([theta], lr=self.step_size, betas=self.betas, eps=self.epsilon)
            if state:
                self._adam.load_state_dict(state)
        theta.grad = gradient
        self._adam.step()
        theta.grad = None

    def state_dict(self) -> dict[str, Any]:
        """The moment estimates and step count (empty before the first step)."""
        if self._adam is None:
            return dict(self._pending_state or {})
        return self._adam.state_dict()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restores a state; it is applied at the next step (when the parameter vector is known)."""
        self._adam = None
        self._pending_state = dict(state) or None
