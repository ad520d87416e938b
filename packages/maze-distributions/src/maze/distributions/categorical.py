"""Categorical distribution for ``Discrete`` action spaces."""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from maze.distributions.base import TorchProbabilityDistribution, check_inputs, check_space
from maze.distributions.utils import temper_logits

__all__ = ["CategoricalProbabilityDistribution"]


class CategoricalProbabilityDistribution(TorchProbabilityDistribution):
    """Categorical distribution over the ``n`` actions of a ``Discrete(n, start)`` space.

    Masked actions (logits set to a large negative value such as
    ``torch.finfo(dtype).min``) have probability 0 and are never sampled.

    Args:
        logits: Unnormalised log-probabilities ``[*batch, n]``.
        action_space: The ``Discrete`` space; actions are ``start + index``.
        temperature: The logits are divided by it.

    Shapes:
        actions: ``[*batch]`` integers; ``log_prob``/``entropy``/``kl``: ``[*batch]``.
    """

    dist: torch.distributions.Categorical

    def __init__(self, logits: torch.Tensor, action_space: spaces.Discrete, temperature: float = 1.0) -> None:
        check_inputs(type(self), logits, action_space, temperature)
        self.start = int(action_space.start)
        dist = torch.distributions.Categorical(logits=temper_logits(logits, temperature), validate_args=False)
        super().__init__(dist, temperature)

    @classmethod
    def required_logits_shape(cls, action_space: spaces.Space) -> tuple[int, ...]:
        """``(n,)`` for ``Discrete(n)``."""
        return (int(check_space(cls, action_space, spaces.Discrete).n),)

    @classmethod
    def sample_from_logits(
        cls, logits: torch.Tensor, action_space: spaces.Discrete, deterministic: bool = False
    ) -> torch.Tensor:
        """Actions ``[*batch]`` (int64) from logits ``[*batch, n]`` without building the distribution.

        Samples from ``softmax(logits)`` (masked logits have probability 0), skipping the
        log-normalization a distribution object computes for log-probabilities.
        """
        if deterministic:
            index = logits.argmax(dim=-1)
        else:
            probs = torch.softmax(logits, dim=-1)
            index = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1).reshape(probs.shape[:-1])
        start = int(action_space.start)
        return index + start if start else index

    def log_prob(self, actions: Any) -> torch.Tensor:
        """Log-probability of integer actions ``[*batch]`` -> ``[*batch]``."""
        index = torch.as_tensor(actions, device=self.dist.logits.device)
        return self.dist.log_prob(index - self.start if self.start else index)

    def sample(self) -> torch.Tensor:
        """Random actions ``[*batch]`` (int64)."""
        actions = self.dist.sample()
        return actions + self.start if self.start else actions

    def deterministic_sample(self) -> torch.Tensor:
        """The most likely actions ``[*batch]`` (int64)."""
        actions = self.dist.logits.argmax(dim=-1)
        return actions + self.start if self.start else actions
