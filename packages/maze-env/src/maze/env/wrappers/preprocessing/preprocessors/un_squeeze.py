"""Inserts a dimension of size one into an observation."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.wrappers.preprocessing.preprocessors.base import PreProcessor, mapped_box, require_box

__all__ = ["UnSqueezePreProcessor"]


class UnSqueezePreProcessor(PreProcessor):
    """Inserts a dimension of size one, e.g. ``dim: -3`` turns an image ``(H, W)`` into ``(1, H, W)``.

    Args:
        observation_space: A Box space.
        dim: Position of the new dimension in the output (as for ``numpy.expand_dims``).
    """

    def __init__(self, observation_space: spaces.Space, dim: int) -> None:
        super().__init__(observation_space)
        box = require_box(observation_space, type(self))
        out_ndim = len(box.shape) + 1
        if not -out_ndim <= dim < out_ndim:
            raise ConfigurationError(
                f"UnSqueezePreProcessor: dim must lie in [{-out_ndim}, {out_ndim - 1}] for an observation of "
                f"shape {box.shape}, got {dim}"
            )
        self._dim = dim
        self._space = mapped_box(box, self.process)

    def processed_space(self) -> spaces.Box:
        """The Box with the inserted dimension."""
        return self._space

    def process(self, observation: np.ndarray) -> np.ndarray:
        """Returns the observation with a new axis at ``dim`` (a view)."""
        return np.expand_dims(observation, self._dim)
