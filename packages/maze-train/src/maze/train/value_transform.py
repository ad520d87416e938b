"""Value rescaling and categorical value supports (usable by any trainer with a critic).

* :class:`ReduceScaleValueTransform` is ``h(x) = sign(x) * (sqrt(|x| + 1) - 1) + epsilon * x``
  (Pohlen et al. 2018, "Observe and Look Further"), which squashes large returns so that one
  critic fits envs of very different reward scales; its inverse is in closed form.
* :func:`scalar_to_support` / :func:`support_to_scalar` turn scalars into probabilities over
  the integer atoms of a range (two-hot: the neighbouring atoms share the mass) and back,
  for critics that predict a categorical distribution over values.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import torch
from maze.env.errors import ConfigurationError

__all__ = ["ReduceScaleValueTransform", "ValueTransform", "scalar_to_support", "support_to_scalar"]


class ValueTransform(ABC):
    """An invertible transformation of value targets (the critic learns ``transform_value(target)``)."""

    @abstractmethod
    def transform_value(self, value: torch.Tensor) -> torch.Tensor:
        """``h(value)``, element-wise, any shape."""

    @abstractmethod
    def transform_value_inv(self, value: torch.Tensor) -> torch.Tensor:
        """``h^-1(value)``, element-wise, any shape."""


class ReduceScaleValueTransform(ValueTransform):
    """``h(x) = sign(x) * (sqrt(|x| + 1) - 1) + epsilon * x`` and its closed-form inverse.

    Args:
        epsilon: The linear term that keeps ``h`` invertible with a Lipschitz inverse (positive).

    Raises:
        ConfigurationError: If ``epsilon`` is not positive.
    """

    def __init__(self, epsilon: float = 1e-3) -> None:
        if not epsilon > 0:
            raise ConfigurationError(f"ReduceScaleValueTransform needs epsilon > 0, got {epsilon}")
        self.epsilon = epsilon

    def transform_value(self, value: torch.Tensor) -> torch.Tensor:
        """``h(value)``."""
        return torch.sign(value) * (torch.sqrt(torch.abs(value) + 1.0) - 1.0) + self.epsilon * value

    def transform_value_inv(self, value: torch.Tensor) -> torch.Tensor:
        """``h^-1(value) = sign(y) * (((sqrt(1 + 4 eps (|y| + 1 + eps)) - 1) / (2 eps))^2 - 1)``."""
        eps = self.epsilon
        root = (torch.sqrt(1.0 + 4.0 * eps * (torch.abs(value) + 1.0 + eps)) - 1.0) / (2.0 * eps)
        return torch.sign(value) * (root**2 - 1.0)


def _atoms(support_range: tuple[int, int], like: torch.Tensor) -> torch.Tensor:
    low, high = support_range
    if not high > low:
        raise ConfigurationError(f"support_range must be (low, high) with high > low, got {support_range}")
    return torch.arange(low, high + 1, dtype=like.dtype, device=like.device)


def support_to_scalar(support: torch.Tensor, support_range: tuple[int, int]) -> torch.Tensor:
    """The expected value of probabilities over the integer atoms ``low .. high``.

    Args:
        support: ``[..., high - low + 1]`` probabilities (each row sums to 1).
        support_range: ``(low, high)``, the smallest and largest atom.

    Returns:
        ``[...]`` scalars.
    """
    return (support * _atoms(support_range, support)).sum(dim=-1)


def scalar_to_support(scalar: torch.Tensor, support_range: tuple[int, int]) -> torch.Tensor:
    """Two-hot probabilities over the integer atoms ``low .. high`` whose expectation is ``scalar``.

    Scalars outside the range are clipped to it. The mass is split between the two atoms
    next to the scalar in proportion to its distance from them.

    Args:
        scalar: ``[...]`` scalars.
        support_range: ``(low, high)``, the smallest and largest atom.

    Returns:
        ``[..., high - low + 1]`` probabilities.
    """
    low, high = support_range
    atoms = _atoms(support_range, scalar.float())
    clipped = scalar.float().clamp(low, high)
    lower = torch.floor(clipped)
    upper_weight = clipped - lower
    index = (lower - low).long()
    support = torch.zeros(*scalar.shape, atoms.numel(), dtype=atoms.dtype, device=scalar.device)
    support.scatter_(-1, index.unsqueeze(-1), (1.0 - upper_weight).unsqueeze(-1))
    upper_index = (index + 1).clamp(max=atoms.numel() - 1)
    support.scatter_add_(-1, upper_index.unsqueeze(-1), upper_weight.unsqueeze(-1))
    return support
