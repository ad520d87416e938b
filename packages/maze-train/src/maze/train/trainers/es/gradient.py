"""Small pure functions of ES: rank shaping and the gradient estimate."""

from __future__ import annotations

import numpy as np

__all__ = ["centered_ranks", "es_gradient"]


def centered_ranks(values: np.ndarray) -> np.ndarray:
    """Replaces every value by its rank, scaled to ``[-0.5, 0.5]`` (fitness shaping, robust to outliers).

    Args:
        values: Array of any shape.

    Returns:
        float32 array of the same shape; the smallest value gets -0.5, the largest 0.5 (ties
        are broken by position).
    """
    flat = values.ravel()
    ranks = np.empty(flat.size, dtype=np.float32)
    ranks[flat.argsort(kind="stable")] = np.arange(flat.size, dtype=np.float32)
    if flat.size > 1:
        ranks = ranks / (flat.size - 1) - 0.5
    else:
        ranks[:] = 0.0
    return ranks.reshape(values.shape)


def es_gradient(returns: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """The ES estimate of the gradient of the expected return from antithetic pairs.

    Args:
        returns: ``[P, 2]`` returns of the policies with ``+noise`` and ``-noise`` per pair.
        noise: ``[P, n_parameters]`` noise direction of every pair.

    Returns:
        ``[n_parameters]`` ascent direction: the noise weighted by the rank difference of
        each pair, divided by the number of episodes.
    """
    ranks = centered_ranks(returns)
    weights = ranks[:, 0] - ranks[:, 1]
    return (weights @ noise) / returns.size
