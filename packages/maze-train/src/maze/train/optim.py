"""Lean Adam and RMSprop optimizers with a tensors-only state.

``torch.optim.Adam`` imports ``torch._dynamo`` when it is built, which costs close to a
second of start-up on a small machine; a training run of a few seconds should not pay
that. This implementation performs the same update (Kingma & Ba 2015, with bias
correction) with torch's fused Adam kernel (``torch._fused_adam_``, the one behind
``torch.optim.Adam(fused=True)``; one pass over the parameters, measured about 3x faster than
the eight multi-tensor ``_foreach`` passes it replaced, e.g. 67 vs 212 us per step for SAC's
twin Q networks), and its state dict holds only tensors, so it is saved and loaded like model
checkpoints (``weights_only=True``). :class:`RMSprop` (the optimizer of stable-baselines3's A2C)
is written the same way, with ``_foreach`` passes, for the same start-up reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Annotated, Any

import torch
from maze.env.errors import ConfigurationError
from maze.train.bounds import Bounds

__all__ = ["Adam", "OPTIMIZERS", "RMSprop", "build_optimizer"]


class _LeanOptimizer:
    """What the lean optimizers share: a fixed parameter list, a settable learning rate, ``zero_grad``."""

    def __init__(self, parameters: Iterable[torch.nn.Parameter], lr: float) -> None:
        self.parameters = list(parameters)
        self.lr = lr

    def zero_grad(self) -> None:
        """Drops the gradients of all parameters."""
        for parameter in self.parameters:
            parameter.grad = None


class Adam(_LeanOptimizer):
    """Adam over a fixed list of parameters.

    Parameters whose ``grad`` is None in a :meth:`step` are skipped (their moments stay).

    Args:
        parameters: The parameters to optimize (each once).
        lr: The learning rate (may be changed later through :attr:`lr`; 0 leaves the parameters as they are).
        betas: Decay rates of the first and second moment estimates.
        eps: Added to the denominator for numerical stability.
    """

    def __init__(
        self,
        parameters: Iterable[torch.nn.Parameter],
        lr: Annotated[float, Bounds(ge=0)],
        betas: tuple[float, float] = (0.9, 0.999),
        eps: Annotated[float, Bounds(gt=0)] = 1e-8,
    ) -> None:
        super().__init__(parameters, lr)
        self.betas = betas
        self.eps = eps
        self.steps = [torch.zeros((), dtype=torch.float32, device=parameter.device) for parameter in self.parameters]
        """The update count of every parameter (float32 0-d tensors, as the fused kernel takes them)."""
        self.exp_avg = [torch.zeros_like(parameter) for parameter in self.parameters]
        self.exp_avg_sq = [torch.zeros_like(parameter) for parameter in self.parameters]

    @torch.no_grad()
    def step(self) -> None:
        """Applies one Adam update to every parameter that has a gradient."""
        groups: dict[tuple[torch.device, torch.dtype], list[int]] = {}
        for index, parameter in enumerate(self.parameters):
            if parameter.grad is not None:
                groups.setdefault((parameter.device, parameter.dtype), []).append(index)
        beta1, beta2 = self.betas
        for indices in groups.values():  # the fused kernel takes tensors of one device and dtype
            steps = [self.steps[index] for index in indices]
            torch._foreach_add_(steps, 1.0)
            torch._fused_adam_(
                [self.parameters[index] for index in indices],
                [self.parameters[index].grad for index in indices],
                [self.exp_avg[index] for index in indices],
                [self.exp_avg_sq[index] for index in indices],
                [],
                steps,
                lr=self.lr,
                beta1=beta1,
                beta2=beta2,
                weight_decay=0.0,
                eps=self.eps,
                amsgrad=False,
                maximize=False,
            )

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
            ConfigurationError: If the state belongs to other parameters (count or shapes differ) or to another
                optimizer.
        """
        _check_moments(state, "exp_avg", self.parameters)
        for index, parameter in enumerate(self.parameters):
            self.steps[index] = state["steps"][str(index)].to(parameter.device, torch.float32).clone()
            self.exp_avg[index] = state["exp_avg"][str(index)].to(parameter.device).clone()
            self.exp_avg_sq[index] = state["exp_avg_sq"][str(index)].to(parameter.device).clone()
        if not keep_lr:
            self.lr = float(state["lr"])


class RMSprop(_LeanOptimizer):
    """RMSprop over a fixed list of parameters, as ``torch.optim.RMSprop`` (no momentum, not centered).

    ``square_avg = alpha * square_avg + (1 - alpha) * grad**2`` and
    ``parameter -= lr * grad / (sqrt(square_avg) + eps)``; parameters whose ``grad`` is None in a
    :meth:`step` are skipped.

    Args:
        parameters: The parameters to optimize (each once).
        lr: The learning rate (may be changed later through :attr:`lr`; 0 leaves the parameters as they are).
        alpha: Decay rate of the running mean of the squared gradients.
        eps: Added to the denominator for numerical stability.
    """

    def __init__(
        self,
        parameters: Iterable[torch.nn.Parameter],
        lr: Annotated[float, Bounds(ge=0)],
        alpha: float = 0.99,
        eps: Annotated[float, Bounds(gt=0)] = 1e-8,
    ) -> None:
        super().__init__(parameters, lr)
        self.alpha = alpha
        self.eps = eps
        self.square_avg = [torch.zeros_like(parameter) for parameter in self.parameters]

    @torch.no_grad()
    def step(self) -> None:
        """Applies one RMSprop update to every parameter that has a gradient."""
        indices = [index for index, parameter in enumerate(self.parameters) if parameter.grad is not None]
        if not indices:
            return
        parameters = [self.parameters[index] for index in indices]
        grads = [parameter.grad for parameter in parameters]
        square_avg = [self.square_avg[index] for index in indices]
        torch._foreach_mul_(square_avg, self.alpha)
        torch._foreach_addcmul_(square_avg, grads, grads, value=1 - self.alpha)
        denominators = torch._foreach_sqrt(square_avg)
        torch._foreach_add_(denominators, self.eps)
        torch._foreach_addcdiv_(parameters, grads, denominators, value=-self.lr)

    def state_dict(self) -> dict[str, Any]:
        """The optimizer state: tensors only (``lr`` as a 0-d tensor)."""
        return {
            "lr": torch.tensor(self.lr, dtype=torch.float64),
            "square_avg": {str(index): tensor.detach().clone() for index, tensor in enumerate(self.square_avg)},
        }

    def load_state_dict(self, state: Mapping[str, Any], keep_lr: bool = True) -> None:
        """Loads a state written by :meth:`state_dict` for the same parameters (see :meth:`Adam.load_state_dict`).

        Raises:
            ConfigurationError: If the state belongs to other parameters or to another optimizer.
        """
        _check_moments(state, "square_avg", self.parameters)
        for index, parameter in enumerate(self.parameters):
            self.square_avg[index] = state["square_avg"][str(index)].to(parameter.device).clone()
        if not keep_lr:
            self.lr = float(state["lr"])


OPTIMIZERS = {"adam": Adam, "rmsprop": RMSprop}
"""The values of ``algorithm.optimizer`` and their classes."""


def build_optimizer(name: str, parameters: Iterable[torch.nn.Parameter], lr: float, eps: float) -> Adam | RMSprop:
    """The optimizer ``algorithm.optimizer`` names (a key of :data:`OPTIMIZERS`), its other settings at their defaults."""
    return OPTIMIZERS[name](parameters, lr=lr, eps=eps)


def _check_moments(state: Mapping[str, Any], key: str, parameters: list[torch.nn.Parameter]) -> None:
    """Raises a ConfigurationError unless ``state[key]`` holds one tensor of the right shape per parameter."""
    if key not in state:
        raise ConfigurationError(
            f"the optimizer state was written by another optimizer (it has no {key!r}); was algorithm.optimizer "
            "changed? Resume with the optimizer of the run, or start from its weights only"
        )
    moments = state[key]
    if len(moments) != len(parameters) or any(
        moments[str(index)].shape != parameter.shape for index, parameter in enumerate(parameters)
    ):
        raise ConfigurationError(
            "the optimizer state belongs to other parameters (its moment shapes differ from the model's)"
        )
