"""Observation normalization strategies: how statistics are estimated and applied."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Callable, ClassVar, Optional, Union

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from maze.env.errors import ConfigurationError

__all__ = [
    "ObservationNormalizationStrategy",
    "AffineObservationNormalizationStrategy",
    "MeanZeroStdOneObservationNormalizationStrategy",
    "RangeZeroOneObservationNormalizationStrategy",
    "StatisticsType",
]

StatisticsType = dict[str, np.ndarray]
"""Statistics of one observation by name, e.g. ``{"mean": ..., "std": ...}``."""

AxisType = Optional[Union[int, Sequence[int]]]


class ObservationNormalizationStrategy(ABC):
    """Normalizes the values of one Box observation with statistics estimated from samples.

    Subclasses name their statistics in :attr:`statistics_keys` and implement
    :meth:`estimate_stats`, :meth:`normalize_and_process_value` and
    :meth:`_prepare` (precomputation whenever statistics are set). :meth:`normalized_space`
    normalizes the space's bounds, which is right for normalizations that are monotone
    increasing in every element; others override it.

    Args:
        observation_space: The Box space of the observation to normalize.
        clip_range: ``[low, high]`` the normalized values are clipped to; ``None`` leaves
            that side open.
        axis: Batch axes the statistics are reduced over. ``None`` gives scalar
            statistics; ``0`` (or ``[0]``) gives element-wise statistics of the
            observation's shape; ``[0, 1, 2]`` on ``(H, W, C)`` images gives per-channel
            statistics of shape ``(1, 1, C)``. Axis 0 is the sample axis and must be
            included.
    """

    statistics_keys: ClassVar[tuple[str, ...]] = ()
    """Names of the statistics this strategy uses."""

    statistics_lower_bounds: ClassVar[Mapping[str, Union[float, str]]] = MappingProxyType({})
    """Lower bounds that :meth:`set_statistics` checks: a number or the name of another statistic."""

    def __init__(
        self,
        observation_space: spaces.Space,
        clip_range: Sequence[Optional[float]] = (None, None),
        axis: AxisType = None,
    ) -> None:
        if not isinstance(observation_space, spaces.Box) or not observation_space.shape:
            raise ConfigurationError(
                f"{type(self).__name__} normalizes Box observations with at least one dimension, got "
                f"{observation_space}; exclude this observation from normalization (or add a dimension with "
                "UnSqueezePreProcessor)"
            )
        self.observation_space = observation_space
        self.clip_range = _checked_clip_range(clip_range)
        self.axis = _checked_axis(axis, len(observation_space.shape))
        self._statistics: Optional[StatisticsType] = None

    @abstractmethod
    def estimate_stats(self, observations: np.ndarray) -> StatisticsType:
        """Estimates statistics from stacked observations.

        Args:
            observations: Samples, shape ``(N, *observation_shape)``.

        Returns:
            The statistics (float32 arrays broadcastable to the observation shape).
        """

    @abstractmethod
    def normalize_and_process_value(self, value: np.ndarray) -> np.ndarray:
        """Normalizes and clips one observation; returns a new float32 array of its shape."""

    @abstractmethod
    def _prepare(self, statistics: StatisticsType) -> None:
        """Precomputes what :meth:`normalize_and_process_value` needs from ``statistics``."""

    def set_statistics(self, statistics: Mapping[str, npt.ArrayLike]) -> None:
        """Sets the statistics (scalars or arrays broadcastable to the observation shape).

        Raises:
            ConfigurationError: For missing or unknown statistic names, a wrong shape, values
                that are not finite numbers, or values the strategy cannot use (e.g. a
                negative standard deviation).
        """
        if set(statistics) != set(self.statistics_keys):
            raise ConfigurationError(
                f"{type(self).__name__} needs the statistics {list(self.statistics_keys)}, got {sorted(statistics)}"
            )
        shape = self.observation_space.shape
        checked = {}
        for name in self.statistics_keys:
            try:
                with np.errstate(over="ignore"):
                    value = np.asarray(statistics[name], dtype=np.float32)
            except (TypeError, ValueError):
                value = None
            if value is None or not np.all(np.isfinite(value)):
                raise ConfigurationError(
                    f"{type(self).__name__}: statistic {name!r} must hold finite float32 numbers, got "
                    f"{statistics[name]!r}"
                )
            if not _broadcasts_to(value.shape, shape):
                raise ConfigurationError(
                    f"{type(self).__name__}: statistic {name!r} has shape {value.shape}, which does not broadcast to "
                    f"the observation shape {shape}"
                )
            checked[name] = value
        for name, bound in self.statistics_lower_bounds.items():
            low = checked[bound] if isinstance(bound, str) else bound
            if np.any(checked[name] < low):
                got = f"{name}={checked[name]}" + (f", {bound}={low}" if isinstance(bound, str) else "")
                raise ConfigurationError(
                    f"{type(self).__name__}: statistic {name!r} must be >= {bound!r} everywhere, got {got}"
                )
        self._statistics = checked
        self._prepare(checked)

    def get_statistics(self) -> StatisticsType:
        """A copy of the statistics.

        Raises:
            RuntimeError: When no statistics are set yet.
        """
        if self._statistics is None:
            raise RuntimeError(f"{type(self).__name__} has no statistics yet; set or estimate them first")
        return {name: value.copy() for name, value in self._statistics.items()}

    def is_initialized(self) -> bool:
        """True once statistics are set."""
        return self._statistics is not None

    def normalized_space(self, space: Optional[spaces.Box] = None) -> spaces.Box:
        """The float32 Box of normalized observations of ``space`` (default: the strategy's space).

        With statistics, the bounds are the normalized (and clipped) bounds of ``space``;
        without, they are the clip range (infinite where it is open).
        """
        space = self.observation_space if space is None else space
        if self._statistics is None:
            low = -np.inf if self.clip_range[0] is None else self.clip_range[0]
            high = np.inf if self.clip_range[1] is None else self.clip_range[1]
            return spaces.Box(low, high, space.shape, np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            low = self.normalize_and_process_value(space.low)
            high = self.normalize_and_process_value(space.high)
        return spaces.Box(low=low, high=high, dtype=np.float32)

    def _reduce(self, function: Callable[..., np.ndarray], observations: np.ndarray) -> np.ndarray:
        """Applies a numpy reduction (``np.mean``, ``np.max``, ...) over :attr:`axis`.

        Args:
            function: Called as ``function(observations, axis=..., keepdims=True)``.
            observations: Samples, shape ``(N, *observation_shape)``.

        Returns:
            float32 statistics: shape ``()`` for ``axis=None``, else the observation shape
            with ones at the reduced axes.
        """
        observations = np.asarray(observations)
        if observations.shape[1:] != self.observation_space.shape or observations.shape[0] == 0:
            raise ValueError(
                f"{type(self).__name__}.estimate_stats needs observations of shape (N, "
                f"*{self.observation_space.shape}) with N >= 1, got {observations.shape}"
            )
        reduced = function(observations.astype(np.float64, copy=False), axis=self.axis, keepdims=True)
        return (reduced.reshape(()) if self.axis is None else reduced[0]).astype(np.float32)


class AffineObservationNormalizationStrategy(ObservationNormalizationStrategy):
    """A strategy that normalizes with ``(value - shift) * scale`` and then clips.

    Subclasses implement :meth:`estimate_stats` and :meth:`_shift_and_scale`; this class
    precomputes everything so that normalizing one observation costs two to four numpy
    calls.
    """

    _shift: np.ndarray
    _scale: np.ndarray

    @abstractmethod
    def _shift_and_scale(self, statistics: StatisticsType) -> tuple[np.ndarray, np.ndarray]:
        """Returns ``(shift, scale)`` with a positive, finite scale."""

    def _prepare(self, statistics: StatisticsType) -> None:
        shift, scale = self._shift_and_scale(statistics)
        self._shift, self._scale = shift.astype(np.float32), scale.astype(np.float32)
        self._clip_low, self._clip_high = (
            None if bound is None else np.full(self.observation_space.shape, bound, dtype=np.float32)
            for bound in self.clip_range
        )

    def normalize_and_process_value(self, value: np.ndarray) -> np.ndarray:
        """``clip((value - shift) * scale)``, a new float32 array of the observation's shape."""
        normalized = np.subtract(value, self._shift, dtype=np.float32)
        np.multiply(normalized, self._scale, out=normalized)
        if self._clip_low is not None:
            np.maximum(normalized, self._clip_low, out=normalized)
        if self._clip_high is not None:
            np.minimum(normalized, self._clip_high, out=normalized)
        return normalized


class MeanZeroStdOneObservationNormalizationStrategy(AffineObservationNormalizationStrategy):
    """Normalizes to mean zero and standard deviation one: ``(x - mean) / std``, then clips.

    Statistics ``mean`` and ``std``; a zero standard deviation counts as one.
    """

    statistics_keys = ("mean", "std")
    statistics_lower_bounds = MappingProxyType({"std": 0.0})

    def estimate_stats(self, observations: np.ndarray) -> StatisticsType:
        """Mean and standard deviation over :attr:`axis`."""
        return {"mean": self._reduce(np.mean, observations), "std": self._reduce(np.std, observations)}

    def _shift_and_scale(self, statistics: StatisticsType) -> tuple[np.ndarray, np.ndarray]:
        return statistics["mean"], 1.0 / _nonzero(statistics["std"])


class RangeZeroOneObservationNormalizationStrategy(AffineObservationNormalizationStrategy):
    """Normalizes to the range ``[0, 1]``: ``(x - min) / (max - min)``, then clips.

    Statistics ``min`` and ``max``; an empty range (``max == min``) counts as one.
    """

    statistics_keys = ("min", "max")
    statistics_lower_bounds = MappingProxyType({"max": "min"})

    def estimate_stats(self, observations: np.ndarray) -> StatisticsType:
        """Minimum and maximum over :attr:`axis`."""
        return {"min": self._reduce(np.min, observations), "max": self._reduce(np.max, observations)}

    def _shift_and_scale(self, statistics: StatisticsType) -> tuple[np.ndarray, np.ndarray]:
        return statistics["min"], 1.0 / _nonzero(statistics["max"] - statistics["min"])


def _nonzero(spread: np.ndarray) -> np.ndarray:
    """``spread`` with zeros replaced by one (and overflows of ``max - min`` to inf)."""
    return np.where(np.isfinite(spread) & (spread > 0), spread, 1.0)


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """True when an array of ``shape`` broadcasts to ``target`` without growing it."""
    return len(shape) <= len(target) and all(
        size in (1, target_size) for size, target_size in zip(reversed(shape), reversed(target), strict=False)
    )


def _checked_clip_range(clip_range: Sequence[Optional[float]]) -> tuple[Optional[float], Optional[float]]:
    if clip_range is None:
        return None, None
    if len(clip_range) != 2:
        raise ConfigurationError(f"clip_range must be [low, high] (either may be null), got {clip_range!r}")
    low, high = (None if bound is None else float(bound) for bound in clip_range)
    if low is not None and high is not None and low > high:
        raise ConfigurationError(f"clip_range [low, high] needs low <= high, got {clip_range!r}")
    return low, high


def _checked_axis(axis: AxisType, observation_ndim: int) -> Optional[tuple[int, ...]]:
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    batch_ndim = observation_ndim + 1
    if not all(isinstance(a, (int, np.integer)) and -batch_ndim <= a < batch_ndim for a in axes):
        raise ConfigurationError(
            f"axis must be null, an int or a list of ints in [0, {observation_ndim}], got {axis!r}"
        )
    normalized = tuple(sorted({int(a) % batch_ndim for a in axes}))
    if normalized[0] != 0:
        raise ConfigurationError(
            f"axis {axis!r} must include 0, the sample axis of the stacked observations (e.g. axis: [0])"
        )
    return normalized
