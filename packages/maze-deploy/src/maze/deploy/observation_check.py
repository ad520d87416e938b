"""Cheap membership checks of observations in their spaces, with numpy instead of ``Space.contains``.

Each check returns None for an observation inside its space, or a short text saying
what is wrong. Box observations are checked by shape, dtype (it must cast to the space's
dtype within the same kind: float64 into float32 is fine, float into int is not) and
bounds (NaN counts as outside); Discrete ones by type and range; Dict ones key by key;
other spaces fall back to ``space.contains``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import StepKeyType

__all__ = ["ObservationCheck", "space_check"]

Check = Callable[[Any], Optional[str]]
"""Returns None for a value inside the space, else what is wrong with it."""


class ObservationCheck:
    """Checks observations against the observation space of their sub-step.

    Args:
        observation_spaces_dict: Sub-step key -> observation space (e.g. of a wrapper stack).
    """

    def __init__(self, observation_spaces_dict: Mapping[StepKeyType, spaces.Space]) -> None:
        self._checks = {step_key: space_check(space) for step_key, space in observation_spaces_dict.items()}

    def problem(self, observation: Any, step_key: StepKeyType) -> Optional[str]:
        """None when ``observation`` lies in the space of sub-step ``step_key``, else what is wrong."""
        return self._checks[step_key](observation)


def space_check(space: spaces.Space) -> Check:
    """The check of one space (Dict spaces check each key)."""
    if isinstance(space, spaces.Dict):
        return _dict_check(space)
    if isinstance(space, spaces.Box):
        return _box_check(space)
    if isinstance(space, spaces.Discrete):
        return _discrete_check(space)

    def contains(value: Any) -> Optional[str]:
        return None if space.contains(value) else f"= {value!r} is not in {space}"

    return contains


def _dict_check(space: spaces.Dict) -> Check:
    entries = tuple((key, space_check(sub_space)) for key, sub_space in space.spaces.items())

    def check(value: Any) -> Optional[str]:
        if not isinstance(value, Mapping):
            return f"is a {type(value).__name__}, not a dict with the keys {list(space.spaces)}"
        for key, check_entry in entries:
            if key not in value:
                return f"has no key {key!r} (expected {list(space.spaces)})"
            problem = check_entry(value[key])
            if problem is not None:
                return f"[{key!r}] {problem}"
        return None

    return check


def _box_check(space: spaces.Box) -> Check:
    shape, dtype, low, high = space.shape, space.dtype, space.low, space.high

    def check(value: Any) -> Optional[str]:
        array = value if isinstance(value, np.ndarray) else np.asarray(value)
        if array.shape != shape:
            return f"has shape {array.shape}, but the space {space} has shape {shape}"
        if array.dtype != dtype and not np.can_cast(array.dtype, dtype, "same_kind"):
            return f"has dtype {array.dtype}, which does not cast to the dtype {dtype} of {space}"
        inside = (array >= low) & (array <= high)
        if inside.all():
            return None
        index = tuple(int(i) for i in np.argwhere(~inside)[0])
        value, lower, upper = (float(array[index]), float(low[index]), float(high[index]))
        return f"= {value:.6g} at index {index} lies outside the bounds [{lower:.6g}, {upper:.6g}] of {space}"

    return check


def _discrete_check(space: spaces.Discrete) -> Check:
    start, end = int(space.start), int(space.start + space.n)

    def check(value: Any) -> Optional[str]:
        if isinstance(value, np.ndarray) and value.shape == ():
            value = value[()]
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            return f"= {value!r} is not an integer, as {space} needs"
        if not start <= value < end:
            return f"= {value!r} lies outside [{start}, {end - 1}] of {space}"
        return None

    return check
