"""Resizes images with bilinear interpolation (pure numpy)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.env.wrappers.preprocessing.preprocessors.base import PreProcessor, require_box

__all__ = ["ResizeImgPreProcessor"]


class ResizeImgPreProcessor(PreProcessor):
    """Resizes an image to ``target_size`` with bilinear interpolation.

    Pixel centres are aligned as in OpenCV's ``INTER_LINEAR`` (half-pixel offsets,
    border pixels repeated). The layout is kept: with ``transpose: false`` the image is
    ``(H, W)`` or ``(H, W, C)`` (height and width lead); with ``transpose: true`` it is
    channels-first ``(C, H, W)`` (height and width are the last two dimensions). Integer
    images are rounded back to their dtype; float images stay float.

    Args:
        observation_space: A Box space with at least two dimensions.
        target_size: Output ``[height, width]``.
        transpose: True for channels-first images.
    """

    def __init__(self, observation_space: spaces.Space, target_size: Sequence[int], transpose: bool = False) -> None:
        super().__init__(observation_space)
        box = require_box(observation_space, type(self))
        ndim = len(box.shape)
        if ndim < 2 or len(target_size) != 2 or min(target_size) < 1:
            raise ConfigurationError(
                f"ResizeImgPreProcessor needs an image with at least 2 dims and target_size [height, width] of "
                f"positive ints; got shape {box.shape} and target_size {list(target_size)}"
            )
        self._axes = (ndim - 2, ndim - 1) if transpose else (0, 1)
        self._dtype = box.dtype
        self._round = np.issubdtype(box.dtype, np.integer)
        self._interpolations = [
            _linear_interpolation(box.shape[axis], int(size), axis, ndim)
            for axis, size in zip(self._axes, target_size, strict=True)
        ]
        shape = list(box.shape)
        for axis, size in zip(self._axes, target_size, strict=True):
            shape[axis] = int(size)
        # Bilinear interpolation mixes pixels convexly, so the overall value range is kept.
        self._space = spaces.Box(low=box.low.min(), high=box.high.max(), shape=tuple(shape), dtype=box.dtype)

    def processed_space(self) -> spaces.Box:
        """The Box of resized images (same dtype and value range)."""
        return self._space

    def process(self, observation: np.ndarray) -> np.ndarray:
        """Returns the resized image."""
        image = np.asarray(observation, dtype=np.float32)
        for axis, (first, second, first_weight, second_weight) in zip(self._axes, self._interpolations, strict=True):
            image = image.take(first, axis) * first_weight + image.take(second, axis) * second_weight
        if self._round:
            np.rint(image, out=image)
        return image.astype(self._dtype, copy=False)


def _linear_interpolation(
    in_size: int, out_size: int, axis: int, ndim: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Source indices and weights of 1-d linear resampling along ``axis``.

    Returns:
        ``(first, second, first_weight, second_weight)``: the two source indices of each
        output position (shape ``(out_size,)``) and their weights, shaped to broadcast
        along ``axis`` of an ``ndim``-dimensional image.
    """
    source = (np.arange(out_size, dtype=np.float64) + 0.5) * (in_size / out_size) - 0.5
    source = np.clip(source, 0.0, in_size - 1)
    first = np.floor(source).astype(np.intp)
    second = np.minimum(first + 1, in_size - 1)
    weight_shape = [1] * ndim
    weight_shape[axis] = out_size
    second_weight = (source - first).astype(np.float32).reshape(weight_shape)
    return first, second, 1.0 - second_weight, second_weight
