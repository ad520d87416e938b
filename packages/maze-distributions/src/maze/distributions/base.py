"""The interfaces every action distribution implements.

Shape conventions used throughout the package: a distribution built from logits of shape
``[*batch, *logits_shape]`` (``logits_shape`` is what :meth:`required_logits_shape` returns
for the action space) has the batch shape ``[*batch]``. ``*batch`` may be empty, ``[B]``,
``[T, B]`` or anything else. Actions have the shape ``[*batch, *action_shape]`` (the
action space's shape), and :meth:`ProbabilityDistribution.log_prob`,
:meth:`ProbabilityDistribution.entropy` and :meth:`ProbabilityDistribution.kl` return one
value per batch element, ``[*batch]``, summed over the action dimensions.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, TypeVar

import torch
from gymnasium import spaces
from maze.distributions.utils import check_bounded_box, two_parameter_logits_shape
from maze.env.errors import ConfigurationError

__all__ = ["ProbabilityDistribution", "TorchProbabilityDistribution", "check_inputs", "check_space"]

SpaceT = TypeVar("SpaceT", bound=spaces.Space)


class ProbabilityDistribution(ABC):
    """A probability distribution over the actions of one action head (or of all heads).

    A distribution that the :class:`~maze.distributions.distribution_mapper.DistributionMapper`
    can build for an action head also implements ``__init__(logits, action_space,
    temperature=1.0)`` and the class method :meth:`required_logits_shape`.
    """

    @classmethod
    def required_logits_shape(cls, action_space: spaces.Space) -> tuple[int, ...]:
        """The trailing shape of the logits this distribution needs for an action space.

        Args:
            action_space: The space of one action head.

        Raises:
            ConfigurationError: If the distribution does not support the space.
        """
        raise ConfigurationError(
            f"{cls.__name__} does not implement required_logits_shape(action_space), so it cannot be built from "
            "logits for an action head. Implement it, or pick a built-in distribution"
        )

    @classmethod
    def sample_from_logits(cls, logits: torch.Tensor, action_space: spaces.Space, deterministic: bool = False) -> Any:
        """An action per batch element, straight from logits (temperature 1): sampled or the most likely one.

        The same as ``cls(logits=logits, action_space=action_space).sample()`` (or
        ``.deterministic_sample()``); subclasses may skip building the distribution, as
        policies acting step by step only need the action.

        Args:
            logits: ``[*batch, *logits_shape]`` (shapes checked by the caller).
            action_space: The space of the action head.
            deterministic: Take the most likely action instead of sampling.

        Returns:
            ``[*batch, *action_shape]``.
        """
        distribution = cls(logits=logits, action_space=action_space)
        return distribution.deterministic_sample() if deterministic else distribution.sample()

    def neg_log_likelihood(self, actions: Any) -> torch.Tensor:
        """Negative log-likelihood of actions, ``[*batch]`` (see :meth:`log_prob`)."""
        return -self.log_prob(actions)

    @abstractmethod
    def log_prob(self, actions: Any) -> torch.Tensor:
        """Log-density (or log-probability) of actions.

        Args:
            actions: Actions of shape ``[*batch, *action_shape]``.

        Returns:
            ``[*batch]``, summed over the action dimensions.
        """

    @abstractmethod
    def entropy(self) -> torch.Tensor:
        """Entropy of the distribution, ``[*batch]``."""

    @abstractmethod
    def kl(self, other: ProbabilityDistribution) -> torch.Tensor:
        """KL divergence ``KL(self || other)`` to a distribution of the same kind, ``[*batch]``."""

    @abstractmethod
    def sample(self) -> Any:
        """A random action per batch element, ``[*batch, *action_shape]``."""

    @abstractmethod
    def deterministic_sample(self) -> Any:
        """The most likely action per batch element, ``[*batch, *action_shape]``."""


class TorchProbabilityDistribution(ProbabilityDistribution):
    """A distribution that wraps a ``torch.distributions`` object.

    The wrapped object's batch shape is ``[*batch]`` and its event shape is the action
    shape, so its ``log_prob`` and ``entropy`` already sum over the action dimensions.

    Args:
        dist: The torch distribution, already built with the temperature applied.
        temperature: How the distribution was tempered: values below 1 sharpen it (the
            deterministic sample is the limit ``temperature -> 0``), values above 1 flatten
            it. Each subclass documents what it scales.
    """

    def __init__(self, dist: torch.distributions.Distribution, temperature: float) -> None:
        self.dist = dist
        self.temperature = temperature

    def log_prob(self, actions: Any) -> torch.Tensor:
        """Log-probability of actions ``[*batch, *action_shape]`` -> ``[*batch]``."""
        return self.dist.log_prob(actions)

    def entropy(self) -> torch.Tensor:
        """Entropy, ``[*batch]``."""
        return self.dist.entropy()

    def kl(self, other: ProbabilityDistribution) -> torch.Tensor:
        """``KL(self || other)``, ``[*batch]``.

        Raises:
            TypeError: If ``other`` is not a distribution of the same class.
        """
        if type(other) is not type(self):
            raise TypeError(
                f"kl() needs two distributions of the same kind, got {type(self).__name__} and {type(other).__name__}"
            )
        assert isinstance(other, TorchProbabilityDistribution)
        return torch.distributions.kl_divergence(self.dist, other.dist)

    def sample(self) -> torch.Tensor:
        """A random action, ``[*batch, *action_shape]``.

        Reparameterised (gradients flow into the logits) where the torch distribution
        supports it.
        """
        return self.dist.rsample() if self.dist.has_rsample else self.dist.sample()


def check_inputs(
    distribution: type[ProbabilityDistribution],
    logits: torch.Tensor,
    action_space: spaces.Space,
    temperature: float,
) -> None:
    """Validates the constructor arguments of a distribution built from logits.

    Args:
        distribution: The distribution class (its ``required_logits_shape`` checks the space).
        logits: ``[*batch, *logits_shape]``.
        action_space: The space of the action head.
        temperature: Must be positive.

    Raises:
        ConfigurationError: For an unsupported space.
        ValueError: For logits of the wrong shape or a non-positive temperature.
    """
    expected = distribution.required_logits_shape(action_space)
    if not isinstance(logits, torch.Tensor):
        raise ValueError(f"{distribution.__name__} needs logits as a torch.Tensor, got {type(logits).__name__}")
    if len(expected) > logits.dim() or tuple(logits.shape[logits.dim() - len(expected) :]) != expected:
        raise ValueError(
            f"{distribution.__name__} for {action_space} needs logits of shape [*batch, {', '.join(map(str, expected))}]"
            f", got {tuple(logits.shape)}. Size the policy's output with required_logits_shape()"
        )
    if not temperature > 0:
        raise ValueError(
            f"temperature must be positive, got {temperature}; use deterministic_sample() for greedy actions"
        )


def check_space(distribution: type[ProbabilityDistribution], action_space: Any, space_type: type[SpaceT]) -> SpaceT:
    """Returns the action space if it has the type a distribution supports.

    Raises:
        ConfigurationError: Naming the distribution, the space given and the space needed.
    """
    if not isinstance(action_space, space_type):
        raise ConfigurationError(
            f"{distribution.__name__} supports {space_type.__name__} action spaces only, got {action_space!r}. "
            "Map this action head to a distribution for its space in distribution_mapper_config"
        )
    return action_space


def bounded_box_logits_shape(distribution: type[ProbabilityDistribution], action_space: Any) -> tuple[int, ...]:
    """Logits shape ``(2 * d,)`` of a two-parameter distribution over a bounded ``Box(shape=(d,))``.

    Raises:
        ConfigurationError: When ``action_space`` is not a Box or not bounded on every side.
    """
    box = check_space(distribution, action_space, spaces.Box)
    check_bounded_box(distribution.__name__, box)
    return two_parameter_logits_shape(box)
