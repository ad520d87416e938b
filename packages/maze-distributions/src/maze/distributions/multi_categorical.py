"""Independent categorical distributions for ``MultiDiscrete`` action spaces."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from maze.distributions.base import TorchProbabilityDistribution, check_inputs, check_space
from maze.distributions.utils import temper_logits

__all__ = ["MultiCategoricalProbabilityDistribution"]


class MultiCategoricalProbabilityDistribution(TorchProbabilityDistribution):
    """One categorical distribution per dimension of a ``MultiDiscrete(nvec, start)`` space.

    The logits of all dimensions are concatenated: for ``nvec = [3, 2]`` the logits are
    ``[*batch, 5]``, the first 3 for dimension 0 and the last 2 for dimension 1. A
    multi-dimensional ``nvec`` is handled in row-major order. Internally the logits are
    padded with the smallest finite value to ``[*batch, k, max(nvec)]`` so that one torch
    ``Categorical`` covers all ``k = nvec.size`` dimensions; padded entries have
    probability 0. Masking works as for the categorical distribution.

    Args:
        logits: ``[*batch, sum(nvec)]``.
        action_space: The ``MultiDiscrete`` space; actions are ``start + index``.
        temperature: The logits are divided by it.

    Shapes:
        actions: ``[*batch, *nvec.shape]`` integers; ``log_prob``/``entropy``/``kl``: ``[*batch]``
        (summed over the dimensions).
    """

    dist: torch.distributions.Independent

    def __init__(self, logits: torch.Tensor, action_space: spaces.MultiDiscrete, temperature: float = 1.0) -> None:
        check_inputs(type(self), logits, action_space, temperature)
        nvec = np.asarray(action_space.nvec, dtype=np.int64).reshape(-1)
        self.action_shape = tuple(action_space.shape)
        self.start = torch.as_tensor(np.asarray(action_space.start).reshape(-1), device=logits.device)
        width = int(nvec.max())
        positions = np.concatenate([row * width + np.arange(n) for row, n in enumerate(nvec)])
        batch = logits.shape[:-1]
        padded = logits.new_full((*batch, len(nvec) * width), torch.finfo(logits.dtype).min)
        padded[..., torch.as_tensor(positions, device=logits.device)] = temper_logits(logits, temperature)
        categorical = torch.distributions.Categorical(
            logits=padded.reshape(*batch, len(nvec), width), validate_args=False
        )
        super().__init__(torch.distributions.Independent(categorical, 1, validate_args=False), temperature)

    @classmethod
    def required_logits_shape(cls, action_space: spaces.Space) -> tuple[int, ...]:
        """``(sum(nvec),)`` for ``MultiDiscrete(nvec)``."""
        return (int(np.sum(check_space(cls, action_space, spaces.MultiDiscrete).nvec)),)

    def log_prob(self, actions: Any) -> torch.Tensor:
        """Log-probability of integer actions ``[*batch, *nvec.shape]`` -> ``[*batch]``."""
        index = torch.as_tensor(actions, device=self.start.device)
        index = index.reshape(*index.shape[: index.dim() - len(self.action_shape)], -1) - self.start
        return self.dist.log_prob(index)

    def sample(self) -> torch.Tensor:
        """Random actions ``[*batch, *nvec.shape]`` (int64)."""
        return self._to_actions(self.dist.sample())

    def deterministic_sample(self) -> torch.Tensor:
        """The most likely action of every dimension, ``[*batch, *nvec.shape]`` (int64)."""
        return self._to_actions(self.dist.base_dist.logits.argmax(dim=-1))

    def _to_actions(self, index: torch.Tensor) -> torch.Tensor:
        """``[*batch, k]`` indices -> ``[*batch, *nvec.shape]`` actions."""
        return (index + self.start).reshape(*index.shape[:-1], *self.action_shape)
