"""The interface of observation pre-processors and helpers shared by the built-in ones."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Callable

import numpy as np
from gymnasium import spaces
from maze.env.errors import ConfigurationError

__all__ = ["PreProcessor", "require_box", "mapped_box"]


class PreProcessor(ABC):
    """Turns one observation into a new (pre-processed) observation.

    A pre-processor is built for one observation space and knows the space of what it
    produces. The :class:`PreProcessingWrapper` stores the result under the key
    ``<observation>-<tag>``; the tag is the name of the module that defines the class
    (``rgb2gray`` for ``.../rgb2gray.py``), so a custom pre-processor in
    ``my_project/preprocessors/custom.py`` tags its output ``-custom``.

    Subclasses take the observation space plus their config keys as keyword arguments.

    Args:
        observation_space: Space of the observation this pre-processor receives.
    """

    def __init__(self, observation_space: spaces.Space) -> None:
        self.observation_space = observation_space

    @abstractmethod
    def processed_space(self) -> spaces.Space:
        """Space of the pre-processed observation."""

    def processed_shape(self) -> tuple[int, ...]:
        """Shape of the pre-processed observation."""
        return tuple(self.processed_space().shape)

    @abstractmethod
    def process(self, observation: Any) -> np.ndarray:
        """Returns the pre-processed observation (one observation, no batch dimension)."""

    @classmethod
    def tag(cls) -> str:
        """Suffix of the output key: the name of the module that defines the class."""
        return cls.__module__.rsplit(".", 1)[-1]


def require_box(space: spaces.Space, preprocessor: type[PreProcessor]) -> spaces.Box:
    """Returns ``space`` if it is a Box, else raises an error naming the pre-processor."""
    if not isinstance(space, spaces.Box):
        raise ConfigurationError(f"{preprocessor.__name__} needs a Box observation space, got {space}")
    return space


def mapped_box(space: spaces.Box, process: Callable[[np.ndarray], np.ndarray]) -> spaces.Box:
    """The Box whose bounds are ``process`` applied to the bounds of ``space``.

    Valid for pre-processors that are monotone in every input element (reshaping,
    transposing, weighted sums with positive weights): every processed observation of
    ``space`` then lies within the mapped bounds.
    """
    low, high = process(space.low), process(space.high)
    return spaces.Box(low=low, high=high, dtype=low.dtype)
