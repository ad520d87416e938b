"""Permutes the dimensions of an observation."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.wrappers.preprocessing.preprocessors.base import PreProcessor, mapped_box, require_box

__all__ = ["TransposePreProcessor"]


class TransposePreProcessor(PreProcessor):
    """Transposes an array observation, e.g. ``axes: [2, 0, 1]`` turns ``(H, W, C)`` into ``(C, H, W)``.

    Args:
        observation_space: A Box space.
        axes: A permutation of the observation's dimensions (as for ``numpy.transpose``).
    """

    def __init__(self, observation_space: spaces.Space, axes: Sequence[int]) -> None:
        super().__init__(observation_space)
        box = require_box(observation_space, type(self))
        self._axes = tuple(int(axis) for axis in axes)
        if sorted(self._axes) != list(range(len(box.shape))):
            raise ConfigurationError(
                f"TransposePreProcessor: axes must be a permutation of {list(range(len(box.shape)))} for an "
                f"observation of shape {box.shape}, got {list(axes)}"
            )
        self._space = mapped_box(box, self.process)

    def processed_space(self) -> spaces.Box:
        """The Box with permuted dimensions."""
        return self._space

    def process(self, observation: np.ndarray) -> np.ndarray:
        """Returns the transposed observation (a view)."""
        return observation.transpose(self._axes)
