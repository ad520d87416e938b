"""Running mean and standard deviation over batches of arrays."""

from __future__ import annotations

from typing import Union

import numpy as np

__all__ = ["CumulativeMovingMeanStd"]


class CumulativeMovingMeanStd:
    """Mean and standard deviation of all values seen so far, updated batch by batch along axis 0.

    After updates with batches ``b_1, ..., b_k`` (each of shape ``(n_i, *shape)``),
    :attr:`mean`, :attr:`var` and :attr:`std` equal ``np.mean``, ``np.var`` and
    ``np.std`` (population statistics, ``ddof=0``) of ``np.concatenate([b_1, ..., b_k])``
    along axis 0. Batches are merged with the parallel-variance formula of Chan et al.,
    so no past values are stored.

    Args:
        epsilon: Lower bound of :attr:`std`, so that dividing by it is always safe.
    """

    def __init__(self, epsilon: float = 1e-8) -> None:
        self.epsilon = epsilon
        self._mean: Union[float, np.ndarray] = 0.0
        self._var: Union[float, np.ndarray] = 0.0
        self._count = 0

    def update(self, batch: np.ndarray) -> None:
        """Adds the values of ``batch`` (shape ``(n, *shape)``; an empty batch changes nothing)."""
        batch = np.asarray(batch)
        if batch.ndim == 0:
            raise ValueError("CumulativeMovingMeanStd.update expects a batch along axis 0, got a scalar; pass [value]")
        batch_count = batch.shape[0]
        if batch_count == 0:
            return
        batch_mean = batch.mean(axis=0)
        batch_var = batch.var(axis=0)
        total = self._count + batch_count
        delta = batch_mean - self._mean
        self._mean = self._mean + delta * (batch_count / total)
        squares = self._var * self._count + batch_var * batch_count + delta**2 * (self._count * batch_count / total)
        self._var = squares / total
        self._count = total

    def restore(self, count: int, mean: Union[float, np.ndarray], var: Union[float, np.ndarray]) -> None:
        """Sets the statistics saved from another instance (``count``, ``mean``, ``var``; e.g. when resuming)."""
        self._count, self._mean, self._var = int(count), mean, var

    @property
    def mean(self) -> Union[float, np.ndarray]:
        """Mean of all values, shape ``shape`` (0.0 before the first update)."""
        return self._mean

    @property
    def var(self) -> Union[float, np.ndarray]:
        """Population variance of all values, shape ``shape`` (0.0 before the first update)."""
        return self._var

    @property
    def std(self) -> Union[float, np.ndarray]:
        """Population standard deviation of all values, at least ``epsilon``; shape ``shape``."""
        return np.maximum(np.sqrt(self._var), self.epsilon)

    @property
    def count(self) -> int:
        """Number of values (rows) seen so far."""
        return self._count
