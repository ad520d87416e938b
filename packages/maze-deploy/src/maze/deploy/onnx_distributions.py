"""Numpy samplers of the action distributions, for policies whose networks run without torch (ONNX).

Each sampler turns a head's logits ``[B, *logits_shape]`` (as the network computes them, action
masks applied) into actions ``[B, *action_shape]`` the way maze's torch distributions do: the
most likely action when deterministic, else a sample drawn from a ``numpy.random.Generator``.
The metadata of an exported policy names each head's distribution by its *kind* (one of
:data:`~maze.env.agent.onnx_format.DISTRIBUTION_KINDS`); see :mod:`maze.perception.export.metadata`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from maze.env.agent.onnx_format import (
    BERNOULLI,
    BETA,
    CATEGORICAL,
    GAUSSIAN,
    MULTI_CATEGORICAL,
    SQUASHED_GAUSSIAN,
)
from maze.env.errors import ConfigurationError

__all__ = ["HeadSampler", "CategoricalSampler", "head_sampler"]


class HeadSampler(ABC):
    """Actions and distribution parameters of one action head from its logits.

    Args:
        space: The head's action space.
        data: The head's distribution entry of the metadata (``kind`` and constants).
    """

    def __init__(self, space: spaces.Space, data: Mapping[str, Any]) -> None:
        self.space = space

    @abstractmethod
    def act(self, logits: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
        """``[B, *logits_shape]`` -> actions ``[B, *action_shape]``."""

    @abstractmethod
    def parameters(self, logits: np.ndarray) -> dict[str, np.ndarray]:
        """The distribution's parameters (``probs``, or ``mean`` and ``std``, ...), each ``[B, ...]``."""


def _softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis in float64; masked logits (the float32 minimum) get probability 0."""
    shifted = logits.astype(np.float64) - logits.max(axis=-1, keepdims=True)
    with np.errstate(under="ignore"):
        weights = np.exp(shifted)
    return weights / weights.sum(axis=-1, keepdims=True)


def _sample_index(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Inverse-CDF samples ``[*batch]`` of ``probs`` ``[*batch, n]``; zero-probability entries are never drawn."""
    cumulative = np.cumsum(probs, axis=-1)
    draws = rng.random(probs.shape[:-1])[..., None] * cumulative[..., -1:]
    index = (cumulative <= draws).sum(axis=-1)
    last_possible = probs.shape[-1] - 1 - np.argmax(probs[..., ::-1] > 0, axis=-1)
    return np.minimum(index, last_possible)


class CategoricalSampler(HeadSampler):
    """``Discrete(n, start)``: logits ``[B, n]`` -> int64 actions ``[B]``."""

    def __init__(self, space: spaces.Discrete, data: Mapping[str, Any]) -> None:
        super().__init__(space, data)
        self.start = int(space.start)

    def act(self, logits: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
        """The argmax, or a sample of ``softmax(logits)``, plus ``start``."""
        index = logits.argmax(axis=-1) if deterministic else _sample_index(_softmax(logits), rng)
        return index.astype(np.int64) + self.start

    def parameters(self, logits: np.ndarray) -> dict[str, np.ndarray]:
        """``probs`` ``[B, n]``."""
        return {"probs": _softmax(logits)}


class MultiCategoricalSampler(HeadSampler):
    """``MultiDiscrete(nvec, start)``: concatenated logits ``[B, sum(nvec)]`` -> int64 actions ``[B, *nvec.shape]``."""

    def __init__(self, space: spaces.MultiDiscrete, data: Mapping[str, Any]) -> None:
        super().__init__(space, data)
        nvec = np.asarray(space.nvec, dtype=np.int64).reshape(-1)
        self.bounds = np.cumsum(nvec)[:-1]
        self.start = np.asarray(space.start, dtype=np.int64).reshape(-1)
        self.shape = tuple(space.shape)

    def act(self, logits: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
        """One categorical per dimension."""
        parts = np.split(logits, self.bounds, axis=-1)
        pick = (
            (lambda part: part.argmax(axis=-1)) if deterministic else (lambda part: _sample_index(_softmax(part), rng))
        )
        index = np.stack([pick(part) for part in parts], axis=-1) + self.start
        return index.reshape(*logits.shape[:-1], *self.shape)

    def parameters(self, logits: np.ndarray) -> dict[str, np.ndarray]:
        """``probs`` ``[B, sum(nvec)]``: each dimension's probabilities, concatenated."""
        return {"probs": np.concatenate([_softmax(part) for part in np.split(logits, self.bounds, axis=-1)], axis=-1)}


class BernoulliSampler(HeadSampler):
    """``MultiBinary``: log-odds ``[B, *shape]`` -> int64 0/1 actions ``[B, *shape]``."""

    def act(self, logits: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
        """1 where ``logits > 0`` (deterministic), else Bernoulli draws."""
        if deterministic:
            return (logits > 0).astype(np.int64)
        return (rng.random(logits.shape) < self.parameters(logits)["probs"]).astype(np.int64)

    def parameters(self, logits: np.ndarray) -> dict[str, np.ndarray]:
        """``probs`` of a 1, ``[B, *shape]``."""
        with np.errstate(over="ignore"):
            return {"probs": 1.0 / (1.0 + np.exp(-logits.astype(np.float64)))}


def _two_parameters(logits: np.ndarray, space: spaces.Box) -> tuple[np.ndarray, np.ndarray]:
    """Logits ``[B, *two_parameter_logits_shape]`` -> two ``[B, *space.shape]`` halves of the last axis."""
    first, second = np.split(logits, 2, axis=-1)
    return (first[..., 0], second[..., 0]) if not space.shape else (first, second)


class GaussianSampler(HeadSampler):
    """``Box``: mean and log-std logits -> float32 actions (the mean when deterministic; unbounded samples)."""

    def __init__(self, space: spaces.Box, data: Mapping[str, Any]) -> None:
        super().__init__(space, data)
        self.log_std_bounds = tuple(float(bound) for bound in data["log_std_bounds"])

    def act(self, logits: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
        """The mean, or ``mean + std * N(0, 1)``."""
        return self._unsquashed(logits, deterministic, rng).astype(np.float32)

    def parameters(self, logits: np.ndarray) -> dict[str, np.ndarray]:
        """``mean`` and ``std`` ``[B, *space.shape]``."""
        mean, log_std = _two_parameters(logits, self.space)
        return {"mean": mean, "std": np.exp(np.clip(log_std, *self.log_std_bounds))}

    def _unsquashed(self, logits: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
        parameters = self.parameters(logits)
        if deterministic:
            return parameters["mean"]
        return parameters["mean"] + parameters["std"] * rng.standard_normal(parameters["mean"].shape)


class SquashedGaussianSampler(GaussianSampler):
    """Bounded ``Box``: a Gaussian squashed by ``tanh`` into ``[low, high]`` (float32 actions)."""

    def __init__(self, space: spaces.Box, data: Mapping[str, Any]) -> None:
        super().__init__(space, data)
        self.low = space.low.astype(np.float32)
        self.high = space.high.astype(np.float32)

    def act(self, logits: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
        """``low + (tanh(u) + 1) * (high - low) / 2`` of the mean or of a Gaussian sample ``u``, clipped."""
        u = self._unsquashed(logits, deterministic, rng).astype(np.float32)
        action = self.low + (np.tanh(u) + np.float32(1.0)) * ((self.high - self.low) / np.float32(2.0))
        return np.clip(action, self.low, self.high)


class BetaSampler(HeadSampler):
    """Bounded ``Box``: Beta distributions rescaled to ``[low, high]`` (float32 actions, the mode when deterministic)."""

    def __init__(self, space: spaces.Box, data: Mapping[str, Any]) -> None:
        super().__init__(space, data)
        self.max_excess = float(data["max_concentration"]) - 1.0
        self.low = space.low.astype(np.float32)
        self.high = space.high.astype(np.float32)

    def act(self, logits: np.ndarray, deterministic: bool, rng: np.random.Generator) -> np.ndarray:
        """The mode ``(alpha - 1) / (alpha + beta - 2)`` or a Beta draw, rescaled and clipped to the Box."""
        parameters = self.parameters(logits)
        excess_alpha, excess_beta = parameters["alpha"] - 1.0, parameters["beta"] - 1.0
        if deterministic:
            total = excess_alpha + excess_beta
            unit = np.where(total > 0, excess_alpha / np.maximum(total, np.finfo(np.float32).tiny), 0.5)
        else:
            unit = rng.beta(parameters["alpha"], parameters["beta"])
        action = (self.low + unit * (self.high - self.low)).astype(np.float32)
        return np.clip(action, self.low, self.high)

    def parameters(self, logits: np.ndarray) -> dict[str, np.ndarray]:
        """The concentrations ``alpha`` and ``beta`` ``[B, *space.shape]`` (``softplus(logit) + 1``, capped)."""
        first, second = _two_parameters(logits, self.space)
        alpha, beta = (np.minimum(np.logaddexp(0.0, part), self.max_excess) + 1.0 for part in (first, second))
        return {"alpha": alpha, "beta": beta}


_SAMPLERS: dict[str, tuple[type[HeadSampler], type[spaces.Space]]] = {
    CATEGORICAL: (CategoricalSampler, spaces.Discrete),
    MULTI_CATEGORICAL: (MultiCategoricalSampler, spaces.MultiDiscrete),
    BERNOULLI: (BernoulliSampler, spaces.MultiBinary),
    GAUSSIAN: (GaussianSampler, spaces.Box),
    SQUASHED_GAUSSIAN: (SquashedGaussianSampler, spaces.Box),
    BETA: (BetaSampler, spaces.Box),
}


def head_sampler(head: str, space: spaces.Space, data: Mapping[str, Any]) -> HeadSampler:
    """The sampler of a head's distribution entry.

    Raises:
        ConfigurationError: For an unknown kind or a space the kind does not support.
    """
    kind = data.get("kind") if isinstance(data, Mapping) else None
    if kind not in _SAMPLERS:
        raise ConfigurationError(
            f"action head {head!r}: the ONNX policy has no sampler for the distribution {data!r}; known kinds: "
            f"{list(_SAMPLERS)}. Re-export the policy with this maze version"
        )
    sampler, space_type = _SAMPLERS[kind]
    if not isinstance(space, space_type):
        raise ConfigurationError(
            f"action head {head!r}: the distribution kind {kind!r} needs a {space_type.__name__} space, got {space!r}"
        )
    return sampler(space, data)
