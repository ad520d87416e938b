"""Observation normalization: the wrapper, its strategies and statistics utilities."""

from maze.env.wrappers.normalization.normalization_utils import (
    estimate_observation_normalization_statistics,
    find_normalization_wrapper,
    make_normalized_env_factory,
    obtain_normalization_statistics,
)
from maze.env.wrappers.normalization.observation_normalization_wrapper import ObservationNormalizationWrapper
from maze.env.wrappers.normalization.statistics_io import (
    NormalizationStatisticsType,
    load_normalization_statistics,
    save_normalization_statistics,
)
from maze.env.wrappers.normalization.strategies import (
    AffineObservationNormalizationStrategy,
    MeanZeroStdOneObservationNormalizationStrategy,
    ObservationNormalizationStrategy,
    RangeZeroOneObservationNormalizationStrategy,
    StatisticsType,
)

__all__ = [
    "ObservationNormalizationWrapper",
    "ObservationNormalizationStrategy",
    "AffineObservationNormalizationStrategy",
    "MeanZeroStdOneObservationNormalizationStrategy",
    "RangeZeroOneObservationNormalizationStrategy",
    "StatisticsType",
    "NormalizationStatisticsType",
    "obtain_normalization_statistics",
    "estimate_observation_normalization_statistics",
    "make_normalized_env_factory",
    "find_normalization_wrapper",
    "save_normalization_statistics",
    "load_normalization_statistics",
]
