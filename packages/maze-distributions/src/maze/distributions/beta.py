"""Beta distribution for bounded ``Box`` action spaces."""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from maze.distributions.base import (
    TorchProbabilityDistribution,
    bounded_box_logits_shape,
    check_inputs,
)
from maze.distributions.utils import (
    box_bounds,
    split_two_parameter_logits,
    sum_event_dims,
    tensor_clamp,
)

__all__ = ["BetaProbabilityDistribution"]


class BetaProbabilityDistribution(TorchProbabilityDistribution):
    """Independent Beta distributions, rescaled from ``[0, 1]`` to the bounds of a ``Box``.

    The logits stack the two parameters on the last axis (``[*batch, 6]`` for
    ``Box(shape=(3,))``); each becomes a concentration ``softplus(logit) / temperature + 1``,
    which is always above 1, so the density is unimodal and vanishes at the bounds. The
    temperature keeps the mode and scales the spread.

    An action ``a = low + x * (high - low)`` with ``x ~ Beta(alpha, beta)``. ``log_prob``
    and ``entropy`` are those of ``a`` (they include ``-sum(log(high - low))`` resp.
    ``+sum(log(high - low))``); the KL divergence does not depend on the rescaling.
    Actions are clamped into the bounds before ``log_prob``, and samples are clamped into
    ``[low, high]``, so they always lie in the Box, also for extreme logits. Concentrations
    are capped at :attr:`max_concentration` to keep the sampler finite.

    Args:
        logits: ``[*batch, *two_parameter_logits_shape(action_space)]``.
        action_space: A Box with finite bounds.
        temperature: ``concentration - 1`` is divided by it.

    Shapes:
        actions: ``[*batch, *space.shape]``; ``log_prob``/``entropy``/``kl``: ``[*batch]``.
    """

    max_concentration: float = 1e6
    dist: torch.distributions.Independent

    def __init__(self, logits: torch.Tensor, action_space: spaces.Box, temperature: float = 1.0) -> None:
        check_inputs(type(self), logits, action_space, temperature)
        first, second = split_two_parameter_logits(logits, tuple(action_space.shape))
        excess_cap = self.max_concentration - 1.0
        self._excess = tuple(
            (torch.nn.functional.softplus(logit) / temperature).clamp(max=excess_cap) for logit in (first, second)
        )
        self.low, self.high = box_bounds(action_space, logits)
        self._n_event_dims = len(action_space.shape)
        self._log_volume = sum_event_dims(torch.log(self.high - self.low), self._n_event_dims)
        beta = torch.distributions.Beta(self._excess[0] + 1.0, self._excess[1] + 1.0, validate_args=False)
        super().__init__(torch.distributions.Independent(beta, self._n_event_dims, validate_args=False), temperature)

    @classmethod
    def required_logits_shape(cls, action_space: spaces.Space) -> tuple[int, ...]:
        """``(2 * d,)`` for a bounded ``Box(shape=(d,))`` (see :func:`two_parameter_logits_shape`)."""
        return bounded_box_logits_shape(cls, action_space)

    def log_prob(self, actions: Any) -> torch.Tensor:
        """Log-density of actions ``[*batch, *space.shape]`` in the Box -> ``[*batch]``."""
        eps = torch.finfo(self.low.dtype).eps
        actions = torch.as_tensor(actions, dtype=self.low.dtype, device=self.low.device)
        unit = ((actions - self.low) / (self.high - self.low)).clamp(eps, 1.0 - eps)
        return self.dist.log_prob(unit) - self._log_volume

    def entropy(self) -> torch.Tensor:
        """Differential entropy of the rescaled actions, ``[*batch]``."""
        return self.dist.entropy() + self._log_volume

    def sample(self) -> torch.Tensor:
        """Random actions in ``[low, high]``, ``[*batch, *space.shape]`` (reparameterised)."""
        return self._to_box(self.dist.rsample())

    def deterministic_sample(self) -> torch.Tensor:
        """The mode ``(alpha - 1) / (alpha + beta - 2)`` rescaled to the Box, ``[*batch, *space.shape]``."""
        excess_alpha, excess_beta = self._excess
        total = excess_alpha + excess_beta
        mode = torch.where(total > 0, excess_alpha / total.clamp(min=torch.finfo(total.dtype).tiny), 0.5)
        return self._to_box(mode)

    def _to_box(self, unit: torch.Tensor) -> torch.Tensor:
        """``[0, 1]`` values -> actions in ``[low, high]``."""
        return tensor_clamp(self.low + unit * (self.high - self.low), self.low, self.high)
