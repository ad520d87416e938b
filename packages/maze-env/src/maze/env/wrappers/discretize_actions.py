"""Turns continuous Box actions into discrete bins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError, InvalidActionError
from maze.env.wrappers._shared import StepActionWrapper, check_config_keys, checked_mapping, inner_spaces_dict
from maze.env.wrappers.wrapper import EnvType

__all__ = ["DiscretizeActionsWrapper"]

_OWNER = "DiscretizeActionsWrapper"


class _Bins:
    """Evenly spaced values of one Box action, ``num_bins`` per element.

    Args:
        key: The action key (for error messages).
        box: The Box action space.
        config: ``{num_bins, low?, high?}``.
    """

    def __init__(self, key: str, box: spaces.Space, config: Mapping[str, Any]) -> None:
        if not isinstance(box, spaces.Box):
            raise ConfigurationError(f"{_OWNER}: can only discretize Box actions, but {key!r} is {box}")
        known_keys = isinstance(config, Mapping) and set(config) <= {"num_bins", "low", "high"}
        num_bins = config.get("num_bins") if known_keys else None
        if isinstance(num_bins, bool) or not isinstance(num_bins, int) or num_bins < 2:
            raise ConfigurationError(
                f"{_OWNER}: the config of {key!r} must be {{num_bins: <int >= 2>, low: <optional>, high: <optional>}}, "
                f"got {config!r}"
            )
        low = self._bound(key, box, config, "low").ravel()
        high = self._bound(key, box, config, "high").ravel()
        inside = np.all(low.astype(box.dtype) >= box.low.ravel()) and np.all(high.astype(box.dtype) <= box.high.ravel())
        if np.any(low >= high) or not inside:
            raise ConfigurationError(
                f"{_OWNER}: the bins of {key!r} need low < high within the Box bounds [{box.low}, {box.high}], "
                f"got low={low}, high={high}"
            )
        self.key = key
        self.shape = box.shape
        self.size = int(np.prod(box.shape))
        self.num_bins = num_bins
        self._low = low
        self._width = (high - low) / (num_bins - 1)
        # values[b, i]: the value of bin b for element i, shape (num_bins, size).
        self._values = np.linspace(low, high, num_bins, axis=0).astype(box.dtype)
        self._elements = np.arange(self.size)
        self.space: spaces.Space = (
            spaces.Discrete(num_bins) if self.size == 1 else spaces.MultiDiscrete(np.full(self.size, num_bins))
        )

    @staticmethod
    def _bound(key: str, box: spaces.Box, config: Mapping[str, Any], name: str) -> np.ndarray:
        """The configured bound broadcast to the Box shape, defaulting to the Box's own finite bound."""
        value = config.get(name)
        if value is None:
            bound = getattr(box, name)
            if not np.all(np.isfinite(bound)):
                raise ConfigurationError(
                    f"{_OWNER}: the Box action {key!r} has an infinite {name} bound; set '{name}' in its config"
                )
            return bound.astype(np.float64)
        return np.broadcast_to(np.asarray(value, dtype=np.float64), box.shape)

    def to_continuous(self, action: Union[int, np.ndarray]) -> np.ndarray:
        """The Box value of a bin index (Discrete) or of one bin index per element (MultiDiscrete).

        Raises:
            InvalidActionError: ``action`` is no int (array) of the space's shape with entries
                in ``[0, num_bins)``.
        """
        bins = np.asarray(action)
        if (
            bins.dtype.kind not in "iu"
            or bins.size != self.size
            or bins.ndim > 1
            or not np.all((bins >= 0) & (bins < self.num_bins))
        ):
            raise InvalidActionError(
                f"{_OWNER}: the action {self.key!r} is {action!r}, which is not in {self.space}; it needs "
                f"{'a bin index' if self.size == 1 else f'{self.size} bin indices'} in [0, {self.num_bins - 1}]"
            )
        if self.size == 1:
            return self._values[bins.item()].reshape(self.shape).copy()
        return self._values[bins, self._elements].reshape(self.shape)

    def to_bins(self, value: np.ndarray) -> Union[int, np.ndarray]:
        """The nearest bin of every element of a Box value."""
        bins = np.clip(np.rint((np.asarray(value).ravel() - self._low) / self._width), 0, self.num_bins - 1).astype(
            np.int64
        )
        return int(bins[0]) if self.size == 1 else bins


class DiscretizeActionsWrapper(StepActionWrapper[EnvType]):
    """Replaces continuous Box actions with discrete bins.

    ``discretization_config`` maps action keys to ``{num_bins, low, high}``, e.g.
    ``{"action": {"num_bins": 5, "low": -2.0, "high": 2.0}}``. A Box with one element
    becomes ``Discrete(num_bins)``, a larger one ``MultiDiscrete([num_bins] * size)``
    (one index per element, flattened). The bins are ``num_bins`` evenly spaced values
    from ``low`` to ``high`` (both included); ``low``/``high`` (scalars or per element)
    default to the Box bounds, which must then be finite. :meth:`reverse_action` maps a
    continuous action to the nearest bins. Pendulum's ``Box(-2, 2, (1,))`` becomes
    ``Discrete(num_bins)``.

    Args:
        env: The env to wrap.
        discretization_config: ``{action_key: {num_bins, low?, high?}}``; applies to every
            sub-step that has the action key.
    """

    def __init__(self, env: EnvType, discretization_config: Mapping[str, Mapping[str, Any]]) -> None:
        super().__init__(env)
        self.discretization_config = checked_mapping(
            _OWNER, "discretization_config", discretization_config, "{action_key: {num_bins, low?, high?}}"
        )
        inner_spaces = inner_spaces_dict(env, "action")
        keys_by_step = check_config_keys(_OWNER, "action", list(self.discretization_config), inner_spaces)
        self._bins: dict[StepKeyType, dict[str, _Bins]] = {
            step_key: {key: _Bins(key, inner_spaces[step_key][key], self.discretization_config[key]) for key in keys}
            for step_key, keys in keys_by_step.items()
        }
        self._action_spaces = {
            step_key: self._discrete_space(space, self._bins[step_key]) for step_key, space in inner_spaces.items()
        }

    @staticmethod
    def _discrete_space(space: spaces.Space, bins: dict[str, _Bins]) -> spaces.Space:
        """``space`` with the binned actions replaced by their discrete spaces."""
        if not bins:
            return space
        return spaces.Dict([(key, bins[key].space if key in bins else sub) for key, sub in space.spaces.items()])

    @property
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """Action spaces per sub-step, with discrete bins in place of the configured Box actions."""
        return self._action_spaces

    def step_action(self, action: dict[str, Any], step_key: StepKeyType) -> dict[str, Any]:
        """Replaces bin indices with their continuous values."""
        bins = self._bins[step_key]
        if not bins:
            return action
        continuous = dict(action)
        try:
            for key, key_bins in bins.items():
                continuous[key] = key_bins.to_continuous(action[key])
        except KeyError:
            raise InvalidActionError(
                f"{_OWNER}: the action of sub-step {step_key!r} lacks the key {key!r}; it needs the keys "
                f"{list(self._action_spaces[step_key].spaces)}"
            ) from None
        return continuous

    def step_reverse_action(self, action: dict[str, Any], step_key: StepKeyType) -> dict[str, Any]:
        """Replaces continuous values with the nearest bin indices."""
        bins = self._bins[step_key]
        if not bins:
            return action
        discrete = dict(action)
        for key, key_bins in bins.items():
            discrete[key] = key_bins.to_bins(action[key])
        return discrete
