"""One-hot encodes categorical observations."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.wrappers.preprocessing.preprocessors.base import PreProcessor

__all__ = ["OneHotPreProcessor"]


class OneHotPreProcessor(PreProcessor):
    """One-hot encodes a categorical feature (e.g. a month ``0..11`` becomes 12 zeros and ones).

    Accepted spaces:

    * ``Discrete(n, start)``: the output has shape ``(n,)``.
    * A Box with finite, integral bounds (integer or float dtype holding whole numbers):
      the categories are ``min(low) .. max(high)``. A trailing dimension of size one is
      replaced by the categories (``(1,)`` -> ``(n,)``, ``(k, 1)`` -> ``(k, n)``); any
      other shape gets the categories appended (``(k,)`` -> ``(k, n)``).

    The output is a float32 Box in ``[0, 1]``.

    Args:
        observation_space: A Discrete space or an integral Box space.
    """

    def __init__(self, observation_space: spaces.Space) -> None:
        super().__init__(observation_space)
        if isinstance(observation_space, spaces.Discrete):
            self._offset, n_categories, shape = int(observation_space.start), int(observation_space.n), ()
        elif isinstance(observation_space, spaces.Box) and _has_integral_bounds(observation_space):
            self._offset = int(observation_space.low.min())
            n_categories = int(observation_space.high.max()) - self._offset + 1
            shape = observation_space.shape
        else:
            raise ConfigurationError(
                "OneHotPreProcessor needs a Discrete space or a Box with finite whole-number bounds, got "
                f"{observation_space}"
            )
        kept = shape[:-1] if shape and shape[-1] == 1 else shape
        self._shape = (*kept, n_categories)
        self._eye = np.eye(n_categories, dtype=np.float32)
        self._space = spaces.Box(0.0, 1.0, shape=self._shape, dtype=np.float32)

    def processed_space(self) -> spaces.Box:
        """The float32 Box of one-hot vectors."""
        return self._space

    def process(self, observation: Any) -> np.ndarray:
        """Returns the one-hot encoding, shape ``(*kept, n_categories)``."""
        categories = np.asarray(observation, dtype=np.intp) - self._offset
        return self._eye[categories].reshape(self._shape)


def _has_integral_bounds(box: spaces.Box) -> bool:
    bounds = np.concatenate([box.low.ravel(), box.high.ravel()]).astype(np.float64)
    return bool(np.all(np.isfinite(bounds)) and np.all(bounds == np.round(bounds)))
