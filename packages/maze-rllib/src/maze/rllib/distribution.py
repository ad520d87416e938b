"""Maze's action distributions behind RLlib's ``Distribution`` interface.

RLlib hands a module's action-distribution inputs around as one tensor per sample
(``Columns.ACTION_DIST_INPUTS``, ``[B, n]``). :class:`MazeActionHeads` lays a Maze policy
network's logits (one tensor per action head, ``[B, *logits_shape]``) out in that tensor and
back; :class:`MazeActionDistribution` rebuilds the heads' Maze distributions (those the
model's :class:`~maze.distributions.DistributionMapper` picked) from it, so sampling,
log-probabilities, entropies and KL divergences are Maze's. Action masks act inside the
Maze networks (masked logits), so masked actions have probability zero here as well.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import torch
from gymnasium import spaces
from maze.distributions import DictProbabilityDistribution, DistributionMapper, ProbabilityDistribution
from ray.rllib.core.distribution.distribution import Distribution

__all__ = ["MazeActionHead", "MazeActionHeads", "MazeActionDistribution"]


@dataclass(frozen=True)
class MazeActionHead:
    """One action head of a sub-step: its name, Maze distribution class, space and logits shape."""

    name: str
    distribution_class: type[ProbabilityDistribution]
    space: spaces.Space
    logits_shape: tuple[int, ...]

    @property
    def size(self) -> int:
        """Number of logits of one sample."""
        return math.prod(self.logits_shape)


class MazeActionHeads:
    """The action heads of one sub-step, in the order of the sub-step's action space.

    Args:
        heads: The heads.
    """

    def __init__(self, heads: Sequence[MazeActionHead]) -> None:
        self.heads = tuple(heads)

    @classmethod
    def from_mapper(cls, mapper: DistributionMapper, action_space: spaces.Dict) -> MazeActionHeads:
        """The heads of ``action_space`` with the distributions ``mapper`` picked for them."""
        return cls(
            MazeActionHead(name, mapper.distribution_class(name), space, tuple(mapper.required_logits_shape(name)))
            for name, space in action_space.spaces.items()
        )

    def flatten(self, logits: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """Head -> logits ``[B, *logits_shape]`` as one tensor ``[B, n]`` (heads in order)."""
        return torch.cat([logits[head.name].reshape(logits[head.name].shape[0], head.size) for head in self.heads], -1)

    def split(self, flat: torch.Tensor) -> dict[str, torch.Tensor]:
        """The inverse of :meth:`flatten`: ``[B, n]`` -> head -> ``[B, *logits_shape]``."""
        parts = torch.split(flat, [head.size for head in self.heads], dim=-1)
        return {
            head.name: part.reshape(*flat.shape[:-1], *head.logits_shape)
            for head, part in zip(self.heads, parts, strict=True)
        }

    def distribution(self, flat: torch.Tensor, temperature: float = 1.0) -> DictProbabilityDistribution:
        """The joint Maze distribution of the heads for flat logits ``[B, n]``."""
        logits = self.split(flat)
        return DictProbabilityDistribution(
            {
                head.name: head.distribution_class(
                    logits=logits[head.name], action_space=head.space, temperature=temperature
                )
                for head in self.heads
            }
        )


class MazeActionDistribution(Distribution):
    """RLlib's view of a Maze :class:`DictProbabilityDistribution` (actions are dicts of head -> ``[B, ...]``).

    Build it with :meth:`for_heads` (a class bound to a sub-step's heads, as RLlib builds
    distributions from logits alone).

    Args:
        logits: Flat logits ``[B, n]`` (see :class:`MazeActionHeads`).
        heads: The action heads of the sub-step.
        deterministic: Sample the most likely action (RLlib's ``to_deterministic``).
    """

    def __init__(self, logits: torch.Tensor, heads: MazeActionHeads, deterministic: bool = False) -> None:
        super().__init__()
        self.logits = logits
        self.heads = heads
        self.deterministic = deterministic
        self.maze_distribution = heads.distribution(logits)

    @classmethod
    def for_heads(cls, heads: MazeActionHeads) -> type[MazeActionDistribution]:
        """This class bound to ``heads``: RLlib's ``from_logits(logits)`` then builds the heads' distributions."""
        return cls.get_partial_dist_cls(heads=heads)

    @classmethod
    def from_logits(cls, logits: torch.Tensor, **kwargs: Any) -> MazeActionDistribution:
        """The distribution of flat logits ``[B, n]`` (``heads`` as keyword argument)."""
        return cls(logits, **kwargs)

    def sample(self, *, sample_shape: Optional[Any] = None) -> dict[str, torch.Tensor]:
        """A sampled (or, deterministic, the most likely) action per head, ``[B, *action_shape]``."""
        self._check_sample_shape(sample_shape)
        if self.deterministic:
            return self.maze_distribution.deterministic_sample()
        return self.maze_distribution.sample()

    def rsample(self, *, sample_shape: Optional[Any] = None) -> dict[str, torch.Tensor]:
        """Reparameterized samples are not offered by Maze's distributions.

        Raises:
            NotImplementedError: Always; algorithms that need them (e.g. SAC) run with ``model=rllib``.
        """
        raise NotImplementedError(
            "Maze's action distributions have no reparameterized samples; train with model=rllib for SAC"
        )

    def logp(self, value: Mapping[str, torch.Tensor], **kwargs: Any) -> torch.Tensor:
        """Joint log-probability ``[B]`` of dict actions."""
        return self.maze_distribution.log_prob(value)

    def entropy(self, **kwargs: Any) -> torch.Tensor:
        """Joint entropy ``[B]``."""
        return self.maze_distribution.entropy()

    def kl(self, other: Distribution, **kwargs: Any) -> torch.Tensor:
        """``KL(self || other)`` ``[B]`` of two Maze action distributions of the same heads."""
        return self.maze_distribution.kl(other.maze_distribution)

    def to_deterministic(self) -> MazeActionDistribution:
        """The same distribution, sampling its most likely action."""
        deterministic = MazeActionDistribution(self.logits, self.heads, deterministic=True)
        deterministic.maze_distribution = self.maze_distribution
        return deterministic

    @staticmethod
    def required_input_dim(space: spaces.Space, **kwargs: Any) -> int:
        """The flat logits size of the bound heads (``heads`` as keyword argument)."""
        return sum(head.size for head in kwargs["heads"].heads)

    @staticmethod
    def _check_sample_shape(sample_shape: Optional[Any]) -> None:
        if sample_shape not in (None, (), torch.Size()):
            raise NotImplementedError(f"Maze's action distributions draw one sample per logits, got {sample_shape}")
