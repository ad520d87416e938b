"""Joint distribution over the heads of a (flat) dict action space."""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Mapping

import torch
from maze.distributions.base import ProbabilityDistribution

__all__ = ["DictProbabilityDistribution"]


class DictProbabilityDistribution(ProbabilityDistribution):
    """Independent distributions, one per action head, treated as one joint distribution.

    ``log_prob``, ``entropy`` and ``kl`` are sums over the heads; samples are dicts. All
    heads share the batch shape ``[*batch]``.

    Args:
        distribution_dict: Action head name -> distribution of that head.
    """

    def __init__(self, distribution_dict: Mapping[str, ProbabilityDistribution]) -> None:
        if not distribution_dict:
            raise ValueError("DictProbabilityDistribution needs at least one action head distribution")
        self.distribution_dict: dict[str, ProbabilityDistribution] = dict(distribution_dict)

    def log_prob(self, actions: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """Joint log-probability of a dict of actions (each ``[*batch, *head_shape]``) -> ``[*batch]``.

        Raises:
            KeyError: If ``actions`` lacks a head.
        """
        missing = [head for head in self.distribution_dict if head not in actions]
        if missing:
            raise KeyError(
                f"actions lack the action heads {missing}; expected a dict with {list(self.distribution_dict)}"
            )
        return _sum(dist.log_prob(actions[head]) for head, dist in self.distribution_dict.items())

    def entropy(self) -> torch.Tensor:
        """Sum of the heads' entropies, ``[*batch]``."""
        return _sum(dist.entropy() for dist in self.distribution_dict.values())

    def kl(self, other: ProbabilityDistribution) -> torch.Tensor:
        """Sum of the heads' ``KL(self[head] || other[head])``, ``[*batch]``.

        Raises:
            TypeError: If ``other`` is no DictProbabilityDistribution.
            KeyError: If ``other`` has different action heads.
        """
        if not isinstance(other, DictProbabilityDistribution):
            raise TypeError(f"kl() of a DictProbabilityDistribution needs another one, got {type(other).__name__}")
        if other.distribution_dict.keys() != self.distribution_dict.keys():
            raise KeyError(
                f"kl() needs the same action heads on both sides, got {list(self.distribution_dict)} and "
                f"{list(other.distribution_dict)}"
            )
        return _sum(dist.kl(other.distribution_dict[head]) for head, dist in self.distribution_dict.items())

    def sample(self) -> dict[str, torch.Tensor]:
        """A random action per head, each ``[*batch, *head_shape]``."""
        return {head: dist.sample() for head, dist in self.distribution_dict.items()}

    def deterministic_sample(self) -> dict[str, torch.Tensor]:
        """The most likely action per head, each ``[*batch, *head_shape]``."""
        return {head: dist.deterministic_sample() for head, dist in self.distribution_dict.items()}


def _sum(values: Iterable[torch.Tensor]) -> torch.Tensor:
    """Sums tensors of equal shape (there is at least one head)."""
    return functools.reduce(operator.add, values)
