import numpy as np
import pytest
from maze.env.utils.running_stats import CumulativeMovingMeanStd


@pytest.mark.parametrize("shape", [(), (3,), (2, 4)])
def test_matches_numpy_on_the_concatenated_batches(shape):
    rng = np.random.default_rng(0)
    batches = [rng.normal(5.0, 3.0, size=(size, *shape)) for size in (1, 7, 2, 30, 1)]
    stats = CumulativeMovingMeanStd(epsilon=0.0)
    for index, batch in enumerate(batches):
        stats.update(batch)
        seen = np.concatenate(batches[: index + 1])
        np.testing.assert_allclose(stats.mean, seen.mean(axis=0), rtol=1e-12)
        np.testing.assert_allclose(stats.var, seen.var(axis=0), rtol=1e-10)
        np.testing.assert_allclose(stats.std, seen.std(axis=0), rtol=1e-10)
        assert stats.count == len(seen)
    assert np.shape(stats.mean) == shape


def test_empty_batches_change_nothing_and_scalars_are_rejected():
    stats = CumulativeMovingMeanStd()
    stats.update(np.zeros((0, 2)))
    assert stats.count == 0 and stats.mean == 0.0
    stats.update(np.array([1.0, 3.0]))
    assert (stats.mean, stats.var, stats.count) == (2.0, 1.0, 2)
    with pytest.raises(ValueError, match="batch along axis 0"):
        stats.update(np.float64(1.0))


def test_std_is_bounded_below_by_epsilon():
    stats = CumulativeMovingMeanStd(epsilon=1e-3)
    stats.update(np.full((5, 2), 7.0))
    np.testing.assert_array_equal(stats.var, [0.0, 0.0])
    np.testing.assert_array_equal(stats.std, [1e-3, 1e-3])
