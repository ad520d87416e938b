"""Flattens the last dimensions of an observation."""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.wrappers.preprocessing.preprocessors.base import PreProcessor, mapped_box, require_box

__all__ = ["FlattenPreProcessor"]


class FlattenPreProcessor(PreProcessor):
    """Flattens the last ``num_flatten_dims`` dimensions into one: ``(200, 2)`` -> ``(400,)``.

    Args:
        observation_space: A Box space.
        num_flatten_dims: How many trailing dimensions to merge (1 to the number of dims).
    """

    def __init__(self, observation_space: spaces.Space, num_flatten_dims: int) -> None:
        super().__init__(observation_space)
        box = require_box(observation_space, type(self))
        ndim = len(box.shape)
        if not 1 <= num_flatten_dims <= ndim:
            raise ConfigurationError(
                f"FlattenPreProcessor: num_flatten_dims must lie in [1, {ndim}] for an observation of shape "
                f"{box.shape}, got {num_flatten_dims}"
            )
        kept = box.shape[: ndim - num_flatten_dims]
        self._shape = (*kept, math.prod(box.shape[ndim - num_flatten_dims :]))
        self._space = mapped_box(box, self.process)

    def processed_space(self) -> spaces.Box:
        """The Box with the flattened shape."""
        return self._space

    def process(self, observation: np.ndarray) -> np.ndarray:
        """Reshapes ``observation`` (shape ``(*kept, *flattened)``) to ``(*kept, prod(flattened))``."""
        return observation.reshape(self._shape)
