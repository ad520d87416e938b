"""Tanh-squashed Gaussian distribution for bounded ``Box`` action spaces."""

from __future__ import annotations

import math
from typing import Any

import torch
from gymnasium import spaces
from maze.distributions.base import (
    TorchProbabilityDistribution,
    bounded_box_logits_shape,
    check_inputs,
)
from maze.distributions.gaussian import gaussian_parameters
from maze.distributions.utils import (
    atanh,
    box_bounds,
    sum_event_dims,
    tensor_clamp,
)

__all__ = ["SquashedGaussianProbabilityDistribution", "log_one_minus_tanh_squared"]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
"""``log`` of the standard normal density's normalizer."""
_QUADRATURE_NODES = 129
"""Trapezoid nodes on ``[-8, 8]`` standard deviations; the entropy error is below 1e-5."""


def _squash(u: torch.Tensor, low: torch.Tensor, half_range: torch.Tensor) -> torch.Tensor:
    """``low + (tanh(u) + 1) * half_range`` (same shape as ``u``, not clamped)."""
    return low + (torch.tanh(u) + 1.0) * half_range


def _to_box(u: torch.Tensor, low: torch.Tensor, high: torch.Tensor, half_range: torch.Tensor) -> torch.Tensor:
    """Unsquashed values ``u`` -> actions in ``[low, high]`` (same shape), clamped against rounding."""
    return tensor_clamp(_squash(u, low, half_range), low, high)


def log_one_minus_tanh_squared(u: torch.Tensor) -> torch.Tensor:
    """``log(1 - tanh(u)^2) = 2 * (log 2 - u - softplus(-2u))``, finite for any ``u`` (same shape)."""
    return 2.0 * (math.log(2.0) - u - torch.nn.functional.softplus(-2.0 * u))


class SquashedGaussianProbabilityDistribution(TorchProbabilityDistribution):
    """Gaussian squashed by ``tanh`` and rescaled to the bounds of a ``Box``.

    With ``u ~ Normal(mean, std)`` (diagonal) an action is
    ``a = low + (tanh(u) + 1) * (high - low) / 2``. By the change of variables
    ``log p(a) = log N(u) - log(1 - tanh(u)^2) - log((high - low) / 2)``, summed over the
    action dimensions, with ``u = atanh(...)`` computed stably and clamped so that actions at
    the bounds keep a finite log-density. The logits stack mean and log-std like
    :class:`~maze.distributions.gaussian.DiagonalGaussianProbabilityDistribution`; the
    log-std is clamped into :attr:`log_std_bounds` = ``(-20, 2)`` (beyond std 7.4 the tanh
    saturates anyway).

    The entropy has no closed form: it is ``H(u) + E[log(1 - tanh(u)^2)] +
    sum(log((high - low) / 2))`` with the expectation computed by deterministic quadrature
    (differentiable, error below 1e-5 per dimension). The KL divergence between two squashed
    Gaussians of the same Box equals that of the underlying Gaussians (the squashing is a
    bijection), so it is exact.

    Args:
        logits: ``[*batch, *two_parameter_logits_shape(action_space)]``.
        action_space: A Box with finite bounds.
        temperature: The standard deviation of ``u`` is multiplied by it.

    Shapes:
        actions: ``[*batch, *space.shape]``; ``log_prob``/``entropy``/``kl``: ``[*batch]``.
    """

    log_std_bounds: tuple[float, float] = (-20.0, 2.0)
    dist: torch.distributions.Independent

    def __init__(self, logits: torch.Tensor, action_space: spaces.Box, temperature: float = 1.0) -> None:
        check_inputs(type(self), logits, action_space, temperature)
        mean, std = gaussian_parameters(logits, action_space, temperature, self.log_std_bounds)
        self.low, self.high = box_bounds(action_space, logits)
        self._half_range = (self.high - self.low) / 2.0
        self._n_event_dims = len(action_space.shape)
        normal = torch.distributions.Normal(mean, std, validate_args=False)
        super().__init__(torch.distributions.Independent(normal, self._n_event_dims, validate_args=False), temperature)

    @classmethod
    def required_logits_shape(cls, action_space: spaces.Space) -> tuple[int, ...]:
        """``(2 * d,)`` for a bounded ``Box(shape=(d,))`` (see :func:`two_parameter_logits_shape`)."""
        return bounded_box_logits_shape(cls, action_space)

    @classmethod
    def sample_from_logits(
        cls, logits: torch.Tensor, action_space: spaces.Box, deterministic: bool = False
    ) -> torch.Tensor:
        """Actions ``[*batch, *space.shape]`` from logits without building the distribution objects.

        The same values as :meth:`sample` (from the same random state) or
        :meth:`deterministic_sample`; a policy acting step by step skips the construction of
        the ``torch.distributions`` objects (about half of its sampling time at batch size 1).
        """
        mean, std = gaussian_parameters(logits, action_space, 1.0, cls.log_std_bounds)
        u = mean if deterministic else mean + torch.empty_like(mean).normal_() * std
        low, high = box_bounds(action_space, logits)
        return _to_box(u, low, high, (high - low) / 2.0)

    def log_prob(self, actions: Any) -> torch.Tensor:
        """Log-density of actions ``[*batch, *space.shape]`` in the Box -> ``[*batch]``."""
        actions = torch.as_tensor(actions, dtype=self.low.dtype, device=self.low.device)
        u = atanh((actions - self.low) / self._half_range - 1.0)
        return self.dist.log_prob(u) - sum_event_dims(self._log_det(u), self._n_event_dims)

    def entropy(self) -> torch.Tensor:
        """Differential entropy of the actions (quadrature, see the class doc), ``[*batch]``."""
        normal = self.dist.base_dist
        z = torch.linspace(-8.0, 8.0, _QUADRATURE_NODES, dtype=normal.loc.dtype, device=normal.loc.device)
        weights = torch.exp(-0.5 * z**2)
        weights[[0, -1]] *= 0.5
        weights = weights / weights.sum()
        u = normal.loc.unsqueeze(-1) + normal.scale.unsqueeze(-1) * z
        expected_log_det = (log_one_minus_tanh_squared(u) * weights).sum(dim=-1)
        per_dim = normal.entropy() + expected_log_det + torch.log(self._half_range)
        return sum_event_dims(per_dim, self._n_event_dims)

    def rsample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Reparameterised actions ``[*batch, *space.shape]`` and their log-density ``[*batch]``.

        Cheaper than :meth:`sample` followed by :meth:`log_prob` (e.g. for SAC's losses): the
        density of the unsquashed sample ``u = mean + std * eps`` comes from the standard
        normal noise ``eps`` itself (no ``atanh`` round trip, exact also at the bounds), and
        the actions are not clamped, so their gradients stay intact.
        """
        normal = self.dist.base_dist
        noise = torch.randn_like(normal.loc)
        u = normal.loc + normal.scale * noise
        log_density = -0.5 * noise.square() - normal.scale.log() - _HALF_LOG_2PI
        return _squash(u, self.low, self._half_range), sum_event_dims(
            log_density - self._log_det(u), self._n_event_dims
        )

    def sample(self) -> torch.Tensor:
        """Random actions in ``[low, high]``, ``[*batch, *space.shape]`` (reparameterised)."""
        return _to_box(self.dist.rsample(), self.low, self.high, self._half_range)

    def deterministic_sample(self) -> torch.Tensor:
        """``low + (tanh(mean) + 1) * (high - low) / 2``, ``[*batch, *space.shape]``."""
        return _to_box(self.dist.base_dist.loc, self.low, self.high, self._half_range)

    def _log_det(self, u: torch.Tensor) -> torch.Tensor:
        """``log`` of the squashing's derivative per dimension: ``log(1 - tanh(u)^2) + log((high - low) / 2)``."""
        return log_one_minus_tanh_squared(u) + torch.log(self._half_range)
