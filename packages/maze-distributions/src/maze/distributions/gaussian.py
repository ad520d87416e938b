"""Diagonal Gaussian distribution for (unbounded) ``Box`` action spaces."""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from maze.distributions.base import TorchProbabilityDistribution, check_inputs, check_space
from maze.distributions.utils import split_two_parameter_logits, two_parameter_logits_shape

__all__ = ["DiagonalGaussianProbabilityDistribution", "gaussian_parameters"]


def gaussian_parameters(
    logits: torch.Tensor, action_space: spaces.Box, temperature: float, log_std_bounds: tuple[float, float]
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean and standard deviation from logits that stack mean and log-std on the last axis.

    Args:
        logits: ``[*batch, *two_parameter_logits_shape(action_space)]``.
        action_space: The Box.
        temperature: The standard deviation is multiplied by it.
        log_std_bounds: The log-std is clamped into ``[min, max]`` before exponentiation.

    Returns:
        ``(mean, std)``, each ``[*batch, *action_space.shape]``.
    """
    mean, log_std = split_two_parameter_logits(logits, tuple(action_space.shape))
    std = log_std.clamp(*log_std_bounds).exp()
    return mean, std * temperature if temperature != 1.0 else std


class DiagonalGaussianProbabilityDistribution(TorchProbabilityDistribution):
    """Gaussian with a diagonal covariance over the entries of a ``Box`` action space.

    The distribution is unbounded: samples may lie outside the Box (clip them in the env,
    or use the Beta or squashed Gaussian distribution for bounded actions).

    The logits stack the mean and the log standard deviation on the last axis; for
    ``Box(shape=(3,))`` they are ``[*batch, 6]`` (mean first). The log-std is clamped into
    :attr:`log_std_bounds` = ``(-20, 5)``, i.e. std in ``[2e-9, 148]``, which keeps the
    log-density finite; gradients do not flow through clamped entries.

    Args:
        logits: ``[*batch, *two_parameter_logits_shape(action_space)]``.
        action_space: The Box (its bounds are ignored).
        temperature: The standard deviation is multiplied by it.

    Shapes:
        actions: ``[*batch, *space.shape]``; ``log_prob``/``entropy``/``kl``: ``[*batch]``.
    """

    log_std_bounds: tuple[float, float] = (-20.0, 5.0)
    dist: torch.distributions.Independent

    def __init__(self, logits: torch.Tensor, action_space: spaces.Box, temperature: float = 1.0) -> None:
        check_inputs(type(self), logits, action_space, temperature)
        mean, std = gaussian_parameters(logits, action_space, temperature, self.log_std_bounds)
        normal = torch.distributions.Normal(mean, std, validate_args=False)
        super().__init__(
            torch.distributions.Independent(normal, len(action_space.shape), validate_args=False), temperature
        )

    @classmethod
    def required_logits_shape(cls, action_space: spaces.Space) -> tuple[int, ...]:
        """``(2 * d,)`` for ``Box(shape=(d,))`` (see :func:`two_parameter_logits_shape`)."""
        return two_parameter_logits_shape(check_space(cls, action_space, spaces.Box))

    def log_prob(self, actions: Any) -> torch.Tensor:
        """Log-density of actions ``[*batch, *space.shape]`` -> ``[*batch]``."""
        mean = self.dist.base_dist.loc
        return self.dist.log_prob(torch.as_tensor(actions, dtype=mean.dtype, device=mean.device))

    def deterministic_sample(self) -> torch.Tensor:
        """The mean, ``[*batch, *space.shape]``."""
        return self.dist.base_dist.loc
