"""A lean Adam optimizer with a tensors-only state.

``torch.optim.Adam`` imports ``torch._dynamo`` when it is built, which costs close to a
second of start-up on a small machine; a training run of a few seconds should not pay
that. This implementation performs the same update (Kingma & Ba 2015, with bias
correction) with torch's multi-tensor ``_foreach`` kernels, and its state dict holds only
tensors, so it is saved and loaded like model checkpoints (``weights_only=True``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import torch
from maze.env.errors import ConfigurationError

__all__ = ["Adam"]


class Adam:
    """Adam over a fixed list of parameters.

    Parameters whose ``grad`` is None in a :meth:`step` are skipped (their moments stay).

    Args:
        parameters: The parameters to optimize (each once).
        lr: The learning rate (may be changed later through :attr:`lr`).
        betas: Decay rates of the first and second moment estimates.
        eps: Added to the denominator for numerical stability.
    """

    def __init__(
        self,
        parameters: Iterable[torch.nn.Parameter],
        lr: float,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.parameters = list(parameters)
        self.lr = lr
        self.betas = betas
        self.eps = eps
        self.steps = [torch.zeros((), dtype=torch.float64) for _ in self.parameters]
        self.exp_avg = [torch.zeros_like(parameter) for parameter in self.parameters]
        self.exp_avg_sq = [torch.zeros_like(parameter) for parameter in self.parameters]

    def zero_grad(self) -> None:
        """Drops the gradients of all parameters."""
        for parameter in self.parameters:
            parameter.grad = None

    @torch.no_grad()
    def step(self) -> None:
        """Applies one Adam update to every parameter that has a gradient."""
        active = [index for index, parameter in enumerate(self.parameters) if parameter.grad is not None]
        if not active:
            return
        params = [self.parameters[index] for index in active]
        grads = [params[position].grad for position in range(len(params))]
        exp_avg = [self.exp_avg[index] for index in active]
        exp_avg_sq = [self.exp_avg_sq[index] for index in active]
        beta1, beta2 = self.betas
        torch._foreach_lerp_(exp_avg, grads, 1.0 - beta1)
        torch._foreach_mul_(exp_avg_sq, beta2)
        torch._foreach_addcmul_(exp_avg_sq, grads, grads, value=1.0 - beta2)
        steps = [self.steps[index] for index in active]
        torch._foreach_add_(steps, 1.0)
        counts = [float(step) for step in steps]
        step_sizes = [-self.lr / (1.0 - beta1**count) for count in counts]
        denominators = torch._foreach_div(exp_avg_sq, [1.0 - beta2**count for count in counts])
        torch._foreach_sqrt_(denominators)
        torch._foreach_add_(denominators, self.eps)
        torch._foreach_addcdiv_(params, exp_avg, denominators, step_sizes)

    def state_dict(self) -> dict[str, Any]:
        """The optimizer state: tensors only (``lr`` as a 0-d tensor)."""
        return {
            "lr": torch.tensor(self.lr, dtype=torch.float64),
            "steps": {str(index): step.clone() for index, step in enumerate(self.steps)},
            "exp_avg": {str(index): tensor.detach().clone() for index, tensor in enumerate(self.exp_avg)},
            "exp_avg_sq": {str(index): tensor.detach().clone() for index, tensor in enumerate(self.exp_avg_sq)},
        }

    def load_state_dict(self, state: Mapping[str, Any], keep_lr: bool = True) -> None:
        """Loads a state written by :meth:`state_dict` for the same parameters.

        Args:
            state: The state.
            keep_lr: Keep the current learning rate (e.g. a changed ``lr`` when resuming).

        Raises:
            ConfigurationError: If the state belongs to other parameters (count or shapes differ).
        """
        moments = state["exp_avg"]
        if len(moments) != len(self.parameters) or any(
            moments[str(index)].shape != parameter.shape for index, parameter in enumerate(self.parameters)
        ):
            raise ConfigurationError(
                "the optimizer state belongs to other parameters (its moment shapes differ from the model's)"
            )
        for index, parameter in enumerate(self.parameters):
            self.steps[index] = state["steps"][str(index)].clone().to(torch.float64)
            self.exp_avg[index] = state["exp_avg"][str(index)].to(parameter.device).clone()
            self.exp_avg_sq[index] = state["exp_avg_sq"][str(index)].to(parameter.device).clone()
        if not keep_lr:
            self.lr = float(state["lr"])
