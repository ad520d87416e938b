"""ValueTransform: h and its inverse round-trip; categorical supports round-trip and clip."""

from __future__ import annotations

import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.train.value_transform import ReduceScaleValueTransform, scalar_to_support, support_to_scalar


@pytest.mark.parametrize("epsilon", [1e-3, 0.1])
def test_reduce_scale_inverse_round_trips_over_a_wide_range(epsilon: float) -> None:
    transform = ReduceScaleValueTransform(epsilon)
    x = torch.linspace(-1e4, 1e4, 2001, dtype=torch.float64)
    torch.testing.assert_close(transform.transform_value_inv(transform.transform_value(x)), x, rtol=1e-9, atol=1e-7)
    # h squashes: |h(x)| grows like sqrt(|x|), far below |x| for large returns.
    assert transform.transform_value(torch.tensor(10000.0)) == pytest.approx(99.005 + epsilon * 10000, rel=1e-4)


def test_reduce_scale_rejects_a_non_positive_epsilon() -> None:
    with pytest.raises(ConfigurationError, match="epsilon > 0"):
        ReduceScaleValueTransform(0.0)


def test_support_round_trips_scalars_in_range_and_clips_outside() -> None:
    x = torch.linspace(-10.0, 10.0, 401)
    support = scalar_to_support(x, (-10, 10))
    assert support.shape == (401, 21)
    torch.testing.assert_close(support.sum(-1), torch.ones(401))
    assert int((support > 0).sum(-1).max()) <= 2
    torch.testing.assert_close(support_to_scalar(support, (-10, 10)), x, rtol=0, atol=1e-5)
    clipped = support_to_scalar(scalar_to_support(torch.tensor([-50.0, 50.0]), (-10, 10)), (-10, 10))
    torch.testing.assert_close(clipped, torch.tensor([-10.0, 10.0]))
    batched = scalar_to_support(torch.tensor([[1.25, -3.5]]), (-5, 5))
    assert batched.shape == (1, 2, 11)
    assert batched[0, 0, 6].item() == pytest.approx(0.75) and batched[0, 0, 7].item() == pytest.approx(0.25)
