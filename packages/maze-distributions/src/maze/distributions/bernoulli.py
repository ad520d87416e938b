"""Independent Bernoulli distributions for ``MultiBinary`` action spaces."""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from maze.distributions.base import TorchProbabilityDistribution, check_inputs, check_space
from maze.distributions.utils import temper_logits

__all__ = ["BernoulliProbabilityDistribution"]


class BernoulliProbabilityDistribution(TorchProbabilityDistribution):
    """One Bernoulli distribution per entry of a ``MultiBinary(n)`` action space.

    Args:
        logits: Log-odds of a 1, ``[*batch, *space.shape]``.
        action_space: The ``MultiBinary`` space (``n`` may be an int or a shape).
        temperature: The logits are divided by it (masked logits stay finite, see :func:`temper_logits`).

    Shapes:
        actions: ``[*batch, *space.shape]`` with values 0/1 (any numeric dtype);
        ``log_prob``/``entropy``/``kl``: ``[*batch]`` (summed over the entries).
    """

    dist: torch.distributions.Independent

    def __init__(self, logits: torch.Tensor, action_space: spaces.MultiBinary, temperature: float = 1.0) -> None:
        check_inputs(type(self), logits, action_space, temperature)
        self.logits = temper_logits(logits, temperature)
        bernoulli = torch.distributions.Bernoulli(logits=self.logits, validate_args=False)
        dist = torch.distributions.Independent(bernoulli, len(action_space.shape), validate_args=False)
        super().__init__(dist, temperature)

    @classmethod
    def required_logits_shape(cls, action_space: spaces.Space) -> tuple[int, ...]:
        """The space's shape: ``(n,)`` for ``MultiBinary(n)``."""
        return tuple(int(n) for n in check_space(cls, action_space, spaces.MultiBinary).shape)

    def log_prob(self, actions: Any) -> torch.Tensor:
        """Log-probability of 0/1 actions ``[*batch, *space.shape]`` -> ``[*batch]``."""
        return self.dist.log_prob(torch.as_tensor(actions, dtype=self.logits.dtype, device=self.logits.device))

    def sample(self) -> torch.Tensor:
        """Random actions ``[*batch, *space.shape]`` (int64, values 0/1)."""
        return self.dist.sample().long()

    def deterministic_sample(self) -> torch.Tensor:
        """1 where the probability of a 1 exceeds 0.5, else 0, ``[*batch, *space.shape]`` (int64)."""
        return (self.logits > 0).long()
