"""Finding non-finite numbers (NaN, +-inf) in observations, rewards and other arrays.

The first non-finite value that enters training stops it with one message naming where it
came from (see :class:`NonFiniteValueError`); these helpers find that value cheaply: one
vectorized ``np.isfinite`` per array, and only on failure the index of the culprit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from maze.env.errors import MazeError

__all__ = ["NonFiniteValue", "NonFiniteValueError", "find_non_finite", "is_all_finite"]


class NonFiniteValueError(MazeError, ValueError):
    """A NaN or infinite value entered training (reward, observation, loss, gradient or parameter)."""


@dataclass(frozen=True)
class NonFiniteValue:
    """Where a non-finite value was found.

    Attributes:
        key: The dict key of the array (e.g. the observation key), or None for a plain array.
        index: The index of the first non-finite element in its array.
        value: The value itself (nan, inf or -inf).
    """

    key: Optional[str]
    index: tuple[int, ...]
    value: float

    def describe(self) -> str:
        """E.g. ``observation['velocity'][3, 1] = nan``."""
        index = ", ".join(str(i) for i in self.index)
        key = "" if self.key is None else f"[{self.key!r}]"
        return f"{key}[{index}] = {self.value}" if index else f"{key} = {self.value}"


_PYTHON_SUM_MAX_SIZE = 32
"""Float arrays up to this size are first checked by summing their elements in Python.

A NaN or an infinity makes the sum non-finite, so a finite sum proves every element finite; for
a 4-element observation that costs about a third of ``np.isfinite(array).all()`` (0.42 against
1.27 µs here). A non-finite sum is confirmed element-wise, since huge finite values can overflow it.
"""


def is_all_finite(array: Any) -> bool:
    """True if every element of ``array`` is finite (integer and bool arrays always are)."""
    array = np.asarray(array)
    if array.dtype.kind != "f":
        return True
    if array.size <= _PYTHON_SUM_MAX_SIZE and math.isfinite(sum(array.ravel().tolist())):
        return True
    return bool(np.isfinite(array).all())


def find_non_finite(values: Any) -> Optional[NonFiniteValue]:
    """The first non-finite element of an array or of a flat dict of arrays (None if all are finite).

    Args:
        values: An array-like, or a mapping of keys to array-likes (non-numeric entries are skipped).
    """
    items = values.items() if isinstance(values, Mapping) else ((None, values),)
    for key, value in items:
        array = np.asarray(value)
        if array.dtype.kind != "f" or np.isfinite(array).all():
            continue
        index = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        return NonFiniteValue(key, index, float(array[index]) if index else float(array))
    return None
