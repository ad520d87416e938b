"""Converts RGB images to gray scale."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.wrappers.preprocessing.preprocessors.base import PreProcessor, mapped_box, require_box

__all__ = ["Rgb2GrayPreProcessor"]

LUMINANCE_WEIGHTS = np.array([0.299, 0.587, 0.114], dtype=np.float32)
"""ITU-R BT.601 luma weights of the red, green and blue channels."""


class Rgb2GrayPreProcessor(PreProcessor):
    """Replaces the colour dimension of an image by its luminance (a float32 weighted sum).

    ``(H, W, 3)`` with ``rgb_dim: -1`` becomes ``(H, W)``; the value range is kept
    (``[0, 255]`` stays ``[0, 255]``).

    Args:
        observation_space: A Box space whose dimension ``rgb_dim`` has size 3.
        rgb_dim: The colour dimension.
    """

    def __init__(self, observation_space: spaces.Space, rgb_dim: int = -1) -> None:
        super().__init__(observation_space)
        box = require_box(observation_space, type(self))
        ndim = len(box.shape)
        if not -ndim <= rgb_dim < ndim or box.shape[rgb_dim] != 3:
            raise ConfigurationError(
                f"Rgb2GrayPreProcessor: rgb_dim={rgb_dim} must name a dimension of size 3, but the observation "
                f"has shape {box.shape}"
            )
        self._move_from = rgb_dim % ndim if rgb_dim % ndim != ndim - 1 else None
        self._space = mapped_box(box, self.process)

    def processed_space(self) -> spaces.Box:
        """The float32 Box without the colour dimension."""
        return self._space

    def process(self, observation: np.ndarray) -> np.ndarray:
        """Returns the luminance, shape of the observation without ``rgb_dim``, float32."""
        if self._move_from is not None:
            observation = np.moveaxis(observation, self._move_from, -1)
        return np.matmul(observation, LUMINANCE_WEIGHTS, dtype=np.float32)
