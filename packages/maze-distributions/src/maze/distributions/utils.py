"""Tensor helpers shared by the distributions, mainly for Box action spaces."""

from __future__ import annotations

from typing import Optional

import numpy as np
import torch
from gymnasium import spaces
from maze.env.errors import ConfigurationError

__all__ = [
    "atanh",
    "tensor_clamp",
    "sum_event_dims",
    "two_parameter_logits_shape",
    "split_two_parameter_logits",
    "check_bounded_box",
    "box_bounds",
    "temper_logits",
]


def atanh(x: torch.Tensor, eps: Optional[float] = None) -> torch.Tensor:
    """Inverse hyperbolic tangent that stays finite at ``x = +-1``.

    ``x`` is first clamped to ``[-1 + eps, 1 - eps]``; the result is
    ``0.5 * (log1p(x) - log1p(-x))``.

    Args:
        x: Any shape.
        eps: Clamping margin; defaults to the machine epsilon of ``x``'s dtype, which maps
            ``+-1`` to about ``+-8.3`` (float32) or ``+-18.7`` (float64).

    Returns:
        Same shape as ``x``.
    """
    margin = torch.finfo(x.dtype).eps if eps is None else eps
    x = x.clamp(-1.0 + margin, 1.0 - margin)
    return 0.5 * (torch.log1p(x) - torch.log1p(-x))


def tensor_clamp(x: torch.Tensor, low: torch.Tensor, high: torch.Tensor) -> torch.Tensor:
    """Clamps ``x`` elementwise into ``[low, high]``, with broadcasting of the bounds.

    Args:
        x: ``[*batch, *shape]``.
        low: Lower bounds, broadcastable to ``x`` (e.g. ``[*shape]``).
        high: Upper bounds, broadcastable to ``x``.

    Returns:
        Same shape as ``x``.
    """
    return torch.maximum(torch.minimum(x, high), low)


def sum_event_dims(x: torch.Tensor, n_event_dims: int) -> torch.Tensor:
    """Sums the trailing ``n_event_dims`` dimensions: ``[*batch, *event] -> [*batch]``."""
    return x.sum(dim=tuple(range(-n_event_dims, 0))) if n_event_dims else x


def two_parameter_logits_shape(action_space: spaces.Box) -> tuple[int, ...]:
    """Logits shape for two parameters per action dimension, stacked on the last axis.

    ``Box(shape=(3,))`` needs ``(6,)``, ``Box(shape=(2, 3))`` needs ``(2, 6)`` and a scalar
    ``Box(shape=())`` needs ``(2,)``.
    """
    shape = tuple(int(n) for n in action_space.shape)
    return (*shape[:-1], 2 * shape[-1]) if shape else (2,)


def split_two_parameter_logits(logits: torch.Tensor, event_shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
    """Splits logits ``[*batch, *two_parameter_logits_shape]`` into two ``[*batch, *event_shape]``.

    The first half of the last axis is the first parameter (e.g. the mean), the second half
    the second parameter (e.g. the log standard deviation).
    """
    first, second = logits.chunk(2, dim=-1)
    if not event_shape:
        return first.squeeze(-1), second.squeeze(-1)
    return first, second


def check_bounded_box(distribution_name: str, action_space: spaces.Box) -> None:
    """Checks that a Box has finite bounds with ``low < high`` in every dimension.

    Raises:
        ConfigurationError: Naming the distribution and the space, and what to use instead.
    """
    if not (np.all(np.isfinite(action_space.low)) and np.all(np.isfinite(action_space.high))):
        raise ConfigurationError(
            f"{distribution_name} needs a bounded Box, got {action_space!r} with infinite bounds. Give the Box finite "
            "low/high, or use DiagonalGaussianProbabilityDistribution for unbounded actions"
        )
    if not np.all(action_space.low < action_space.high):
        raise ConfigurationError(f"{distribution_name} needs low < high in every dimension, got {action_space!r}")


def box_bounds(action_space: spaces.Box, like: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The bounds ``(low, high)`` of a Box as tensors ``[*action_shape]`` with ``like``'s dtype and device."""
    low = torch.as_tensor(action_space.low, dtype=like.dtype, device=like.device)
    high = torch.as_tensor(action_space.high, dtype=like.dtype, device=like.device)
    return low, high


def temper_logits(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """Divides logits (of categorical or Bernoulli distributions) by the temperature, keeping them finite.

    Action masks are applied by setting logits to a large negative value (e.g.
    ``torch.finfo(dtype).min``); dividing such a value by a temperature below 1 would
    overflow to ``-inf`` and turn log-probabilities, entropies and KL gradients into NaN, so
    the result is clamped to the finite range of the dtype. Masked actions keep probability 0.

    Args:
        logits: Any shape.
        temperature: Positive.

    Returns:
        Same shape as ``logits``.
    """
    if temperature == 1.0:
        return logits
    info = torch.finfo(logits.dtype)
    return (logits / temperature).clamp(min=info.min, max=info.max)
