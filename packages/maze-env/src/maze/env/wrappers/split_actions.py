"""Splits one vector action into several dict entries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Integral
from typing import Any

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError, InvalidActionError
from maze.env.wrappers._shared import StepActionWrapper, check_config_keys, checked_mapping, inner_spaces_dict
from maze.env.wrappers.wrapper import EnvType

__all__ = ["SplitActionsWrapper"]

_OWNER = "SplitActionsWrapper"


def _sub_space(space: spaces.Space, indices: np.ndarray) -> spaces.Space:
    """The space of the entries ``indices`` of the 1-D vector space ``space``."""
    if isinstance(space, spaces.MultiBinary):
        return spaces.MultiBinary(len(indices))
    if isinstance(space, spaces.MultiDiscrete):
        return spaces.MultiDiscrete(space.nvec[indices], dtype=space.dtype, start=space.start[indices])
    return spaces.Box(space.low[indices], space.high[indices], dtype=space.dtype)


def _is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _parse_split(action_key: str, space: spaces.Space, split: Any, step_key: StepKeyType) -> dict[str, np.ndarray]:
    """Validates the split of one action; returns the indices of every sub-action.

    Raises:
        ConfigurationError: The action is no 1-D MultiBinary/MultiDiscrete/Box, or the
            indices do not cover its entries exactly once.
    """
    if not isinstance(space, (spaces.MultiBinary, spaces.MultiDiscrete, spaces.Box)) or len(space.shape) != 1:
        raise ConfigurationError(
            f"{_OWNER}: can only split 1-D MultiBinary, MultiDiscrete or Box actions, but {action_key!r} of sub-step "
            f"{step_key!r} is {space}"
        )
    if not isinstance(split, Mapping) or not split:
        raise ConfigurationError(
            f"{_OWNER}: the split of {action_key!r} must map new action keys to {{indices: [...]}}"
        )
    indices: dict[str, np.ndarray] = {}
    for sub_key, sub_config in split.items():
        sub_indices = sub_config.get("indices") if isinstance(sub_config, Mapping) and len(sub_config) == 1 else None
        if not isinstance(sub_indices, Sequence) or not sub_indices or not all(_is_int(i) for i in sub_indices):
            raise ConfigurationError(
                f"{_OWNER}: {action_key}.{sub_key} must be {{indices: [<non-empty list of ints>]}}, got {sub_config!r}"
            )
        indices[sub_key] = np.asarray(sub_indices, dtype=np.int64)
    size = space.shape[0]
    used = np.concatenate(list(indices.values()))
    counts = np.bincount(used[(used >= 0) & (used < size)], minlength=size)
    out_of_range = sorted(set(used[(used < 0) | (used >= size)].tolist()))
    if out_of_range or np.any(counts != 1):
        raise ConfigurationError(
            f"{_OWNER}: the indices of {action_key!r} (sub-step {step_key!r}, {size} entries) must cover 0..{size - 1} "
            f"exactly once; missing {np.flatnonzero(counts == 0).tolist()}, duplicated "
            f"{np.flatnonzero(counts > 1).tolist()}, out of range {out_of_range}"
        )
    return indices


def _sub_action_error(
    step_key: StepKeyType, key: str, indices: dict[str, np.ndarray], sub_key: str, value: Any
) -> InvalidActionError:
    """The error for a sub-action that is missing (``value`` None) or has the wrong shape."""
    got = "is missing" if value is None else f"has the shape {np.shape(value)}"
    expected = ", ".join(f"{name!r} of shape {sub_indices.shape}" for name, sub_indices in indices.items())
    return InvalidActionError(
        f"{_OWNER}: the sub-action {sub_key!r} of sub-step {step_key!r} {got}; the split action {key!r} needs the "
        f"sub-actions {expected}"
    )


class SplitActionsWrapper(StepActionWrapper[EnvType]):
    """Splits vector actions into several actions, e.g. for separate action heads.

    ``split_config`` maps an action key to its new sub-actions and the vector indices each
    takes::

        {"action": {"action_up": {"indices": [0]}, "action_down": {"indices": [1, 2]}}}

    turns ``action: MultiBinary(3)`` into ``action_up: MultiBinary(1)`` and
    ``action_down: MultiBinary(2)``. MultiBinary, MultiDiscrete and Box actions (1-D) can
    be split; each sub-space is the matching part of the original space. :meth:`action`
    reassembles the original vector, :meth:`reverse_action` splits it again. A split
    applies to every sub-step that has the action key.

    Args:
        env: The env to wrap.
        split_config: ``{action_key: {sub_action_key: {indices: [...]}}}``; the indices of
            an action must cover each of its entries exactly once.
    """

    def __init__(self, env: EnvType, split_config: Mapping[str, Mapping[str, Any]]) -> None:
        super().__init__(env)
        self.split_config = checked_mapping(
            _OWNER, "split_config", split_config, "{action_key: {sub_action_key: {indices: [...]}}}"
        )
        inner_spaces = inner_spaces_dict(env, "action")
        keys_by_step = check_config_keys(_OWNER, "action", list(self.split_config), inner_spaces)
        # Per sub-step: (action key, original space, {sub key: indices}) of every split action.
        self._splits: dict[StepKeyType, list[tuple[str, spaces.Space, dict[str, np.ndarray]]]] = {}
        self._action_spaces: dict[StepKeyType, spaces.Space] = {}
        for step_key, space in inner_spaces.items():
            splits = [
                (key, space[key], _parse_split(key, space[key], self.split_config[key], step_key))
                for key in keys_by_step[step_key]
            ]
            self._splits[step_key] = splits
            self._action_spaces[step_key] = self._split_space(space, splits, step_key) if splits else space

    @staticmethod
    def _split_space(
        space: spaces.Dict, splits: list[tuple[str, spaces.Space, dict[str, np.ndarray]]], step_key: StepKeyType
    ) -> spaces.Dict:
        entries = dict(space.spaces)
        for key, original, indices in splits:
            del entries[key]
            for sub_key, sub_indices in indices.items():
                if sub_key in entries:
                    raise ConfigurationError(
                        f"{_OWNER}: the sub-action {sub_key!r} of {key!r} clashes with an existing action of sub-step "
                        f"{step_key!r}; choose another name"
                    )
                entries[sub_key] = _sub_space(original, sub_indices)
        return spaces.Dict(list(entries.items()))

    @property
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """Action spaces per sub-step, with the split actions."""
        return self._action_spaces

    def step_action(self, action: dict[str, Any], step_key: StepKeyType) -> dict[str, Any]:
        """Reassembles the split actions into the inner env's vectors.

        Raises:
            InvalidActionError: A sub-action is missing or its shape is not ``(len(indices),)``.
        """
        splits = self._splits[step_key]
        if not splits:
            return action
        merged = dict(action)
        for key, original, indices in splits:
            vector = np.empty(original.shape, dtype=original.dtype)
            for sub_key, sub_indices in indices.items():
                value = merged.pop(sub_key, None)
                if value is None or np.shape(value) != sub_indices.shape:
                    raise _sub_action_error(step_key, key, indices, sub_key, value)
                vector[sub_indices] = value
            merged[key] = vector
        return merged

    def step_reverse_action(self, action: dict[str, Any], step_key: StepKeyType) -> dict[str, Any]:
        """Splits the inner env's vectors into the sub-actions."""
        splits = self._splits[step_key]
        if not splits:
            return action
        split = dict(action)
        for key, _, indices in splits:
            vector = np.asarray(split.pop(key))
            for sub_key, sub_indices in indices.items():
                split[sub_key] = vector[sub_indices]
        return split
