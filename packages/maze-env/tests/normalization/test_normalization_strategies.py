import numpy as np
import pytest
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.wrappers.normalization import (
    MeanZeroStdOneObservationNormalizationStrategy,
    RangeZeroOneObservationNormalizationStrategy,
)

VECTOR = spaces.Box(-np.inf, np.inf, shape=(3,), dtype=np.float32)


def _samples(seed=0, shape=(500, 3)):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=shape) * [1.0, 10.0, 0.1] + [5.0, -2.0, 0.0]).astype(np.float32)


def test_normalization_mean_std_per_element():
    strategy = MeanZeroStdOneObservationNormalizationStrategy(VECTOR, clip_range=(None, None), axis=0)
    observations = _samples()
    statistics = strategy.estimate_stats(observations)
    assert statistics["mean"].shape == (3,) and statistics["mean"].dtype == np.float32
    np.testing.assert_allclose(statistics["mean"], observations.mean(axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(statistics["std"], observations.std(axis=0), rtol=1e-5)
    assert not strategy.is_initialized()
    strategy.set_statistics(statistics)
    normalized = np.stack([strategy.normalize_and_process_value(o) for o in observations])
    np.testing.assert_allclose(normalized.mean(axis=0), 0.0, atol=1e-4)
    np.testing.assert_allclose(normalized.std(axis=0), 1.0, atol=1e-4)
    assert normalized.dtype == np.float32


def test_normalization_axis_none_gives_scalars_and_list_axis_per_channel():
    scalar = MeanZeroStdOneObservationNormalizationStrategy(VECTOR, axis=None)
    assert scalar.estimate_stats(_samples())["std"].shape == ()
    image_space = spaces.Box(0, 255, shape=(4, 5, 3), dtype=np.uint8)
    per_channel = RangeZeroOneObservationNormalizationStrategy(image_space, axis=[0, 1, 2])
    images = np.random.default_rng(1).integers(0, 200, size=(10, 4, 5, 3), dtype=np.uint8)
    statistics = per_channel.estimate_stats(images)
    assert statistics["max"].shape == (1, 1, 3)
    np.testing.assert_array_equal(statistics["max"].ravel(), images.max(axis=(0, 1, 2)))
    with pytest.raises(ConfigurationError, match="must include 0"):
        MeanZeroStdOneObservationNormalizationStrategy(VECTOR, axis=1)


def test_normalization_range_zero_one_maps_and_clips():
    space = spaces.Box(0, 255, shape=(2,), dtype=np.uint8)
    strategy = RangeZeroOneObservationNormalizationStrategy(space, clip_range=[0, 1], axis=None)
    strategy.set_statistics({"min": 0, "max": 255})
    np.testing.assert_allclose(strategy.normalize_and_process_value(np.array([255, 0], np.uint8)), [1.0, 0.0])
    np.testing.assert_allclose(strategy.normalize_and_process_value(np.array([510.0, -51.0])), [1.0, 0.0])
    normalized_space = strategy.normalized_space()
    assert normalized_space.dtype == np.float32
    np.testing.assert_allclose(normalized_space.low, 0.0)
    np.testing.assert_allclose(normalized_space.high, 1.0)


def test_normalization_clips_and_guards_zero_spread():
    strategy = MeanZeroStdOneObservationNormalizationStrategy(VECTOR, clip_range=(-3, 3), axis=0)
    constant = np.ones((20, 3), np.float32)
    strategy.set_statistics(strategy.estimate_stats(constant))
    np.testing.assert_array_equal(strategy.normalize_and_process_value(np.ones(3, np.float32)), 0.0)
    np.testing.assert_array_equal(
        strategy.normalize_and_process_value(np.array([100.0, -100.0, 2.0])), [3.0, -3.0, 1.0]
    )
    np.testing.assert_array_equal(strategy.normalized_space().low, -3.0)
    ranged = RangeZeroOneObservationNormalizationStrategy(VECTOR, axis=0)
    ranged.set_statistics(ranged.estimate_stats(constant))
    assert np.all(np.isfinite(ranged.normalize_and_process_value(np.ones(3))))


def test_normalization_unbounded_space_before_and_after_statistics():
    strategy = MeanZeroStdOneObservationNormalizationStrategy(VECTOR, clip_range=(None, 2.0), axis=0)
    before = strategy.normalized_space()
    assert np.all(before.low == -np.inf) and np.all(before.high == 2.0)
    strategy.set_statistics({"mean": [0.0, 1.0, 2.0], "std": 2.0})
    assert strategy.normalized_space() == spaces.Box(-np.inf, 2.0, (3,), np.float32)
    assert set(strategy.get_statistics()) == {"mean", "std"}


def test_normalization_bad_statistics_are_rejected():
    strategy = MeanZeroStdOneObservationNormalizationStrategy(VECTOR, axis=0)
    with pytest.raises(RuntimeError, match="no statistics"):
        strategy.get_statistics()
    with pytest.raises(ConfigurationError, match=r"needs the statistics \['mean', 'std'\]"):
        strategy.set_statistics({"min": 0, "max": 1})
    with pytest.raises(ConfigurationError, match="does not broadcast"):
        strategy.set_statistics({"mean": np.zeros(4), "std": 1.0})
    with pytest.raises(ValueError, match="shape"):
        strategy.estimate_stats(np.zeros((5, 4)))
    with pytest.raises(ConfigurationError, match="Box observations"):
        MeanZeroStdOneObservationNormalizationStrategy(spaces.Discrete(3))
    with pytest.raises(ConfigurationError, match="clip_range"):
        MeanZeroStdOneObservationNormalizationStrategy(VECTOR, clip_range=(1, -1))


@pytest.mark.parametrize(
    ("strategy_class", "statistics", "message"),
    [
        (MeanZeroStdOneObservationNormalizationStrategy, {"mean": 0.0, "std": [1.0, -1.0, 1.0]}, "'std' must be >= 0"),
        (MeanZeroStdOneObservationNormalizationStrategy, {"mean": np.nan, "std": 1.0}, "'mean' must hold finite"),
        (MeanZeroStdOneObservationNormalizationStrategy, {"mean": 0.0, "std": np.inf}, "'std' must hold finite"),
        (MeanZeroStdOneObservationNormalizationStrategy, {"mean": 1e40, "std": 1.0}, "'mean' must hold finite"),
        (MeanZeroStdOneObservationNormalizationStrategy, {"mean": "zero", "std": 1.0}, "'mean' must hold finite"),
        (
            RangeZeroOneObservationNormalizationStrategy,
            {"min": 1.0, "max": 0.0},
            "'max' must be >= 'min' everywhere, got max=0.0, min=1.0",
        ),
        (RangeZeroOneObservationNormalizationStrategy, {"min": -np.inf, "max": 0.0}, "'min' must hold finite"),
    ],
)
def test_normalization_invalid_statistic_values_are_rejected(strategy_class, statistics, message):
    strategy = strategy_class(VECTOR, axis=0)
    with pytest.raises(ConfigurationError, match=message):
        strategy.set_statistics(statistics)
    assert not strategy.is_initialized()


def test_normalization_zero_spread_statistics_stay_allowed():
    strategy = MeanZeroStdOneObservationNormalizationStrategy(VECTOR, axis=0)
    strategy.set_statistics({"mean": 1.0, "std": 0.0})
    np.testing.assert_array_equal(strategy.normalize_and_process_value(np.full(3, 3.0)), 2.0)
    ranged = RangeZeroOneObservationNormalizationStrategy(VECTOR, axis=0)
    ranged.set_statistics({"min": 1.0, "max": 1.0})
    np.testing.assert_array_equal(ranged.normalize_and_process_value(np.full(3, 3.0)), 2.0)
