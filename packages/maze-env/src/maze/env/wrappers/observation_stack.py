"""Frame stacking: observations of consecutive time steps in one array."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import to_plain_config
from maze.env.wrappers._shared import StepObservationWrapper, inner_spaces_dict, unknown_key_error
from maze.env.wrappers.wrapper import EnvType

__all__ = ["ObservationStackWrapper"]

_OWNER = "ObservationStackWrapper"
_CONFIG_KEYS = {"observation", "keep_original", "tag", "delta", "stack_steps"}


@dataclass(frozen=True)
class _StackSpec:
    """One validated entry of the stack config."""

    observation: str
    stack_steps: int
    keep_original: bool = False
    tag: Optional[str] = None
    delta: bool = False

    @property
    def output_key(self) -> str:
        return self.observation if self.tag is None else f"{self.observation}-{self.tag}"


def _parse_entry(entry: Any, index: int) -> _StackSpec:
    """Validates one stack config entry."""
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"{_OWNER}: stack_config[{index}] must be a mapping, got {entry!r}")
    unknown = set(entry) - _CONFIG_KEYS
    if unknown or "observation" not in entry or "stack_steps" not in entry:
        raise ConfigurationError(
            f"{_OWNER}: stack_config[{index}] = {dict(entry)!r} is invalid; it needs 'observation' and 'stack_steps' "
            f"and may have {sorted(_CONFIG_KEYS - {'observation', 'stack_steps'})}"
            + (f" (unknown keys: {sorted(unknown)})" if unknown else "")
        )
    spec = _StackSpec(**entry)
    if isinstance(spec.stack_steps, bool) or not isinstance(spec.stack_steps, int) or spec.stack_steps < 1:
        raise ConfigurationError(
            f"{_OWNER}: stack_config[{index}].stack_steps must be an int >= 1, got {spec.stack_steps!r}"
        )
    if spec.keep_original and spec.tag is None:
        raise ConfigurationError(
            f"{_OWNER}: stack_config[{index}] keeps the original {spec.observation!r} but has no tag, so the stack "
            "would replace it; give a tag (output key '<observation>-<tag>') or set keep_original: false"
        )
    return spec


def _stacked_space(space: spaces.Space, spec: _StackSpec, step_key: StepKeyType) -> spaces.Box:
    """The Box space of ``spec.stack_steps`` stacked observations of ``space``.

    The bounds include 0 (the padding at episode start); with ``delta`` all rows but the
    newest hold differences, bounded by ``low - high`` and ``high - low``.
    """
    if not isinstance(space, spaces.Box):
        raise ConfigurationError(
            f"{_OWNER}: can only stack Box observations, but {spec.observation!r} of sub-step {step_key!r} is {space}"
        )
    dtype = space.dtype
    if spec.delta and not np.issubdtype(dtype, np.floating):
        dtype = np.dtype(np.float32)
    low, high = space.low.astype(np.float64), space.high.astype(np.float64)
    shape = (spec.stack_steps, *space.shape)
    lows = np.broadcast_to(np.minimum(low, 0), shape).copy()
    highs = np.broadcast_to(np.maximum(high, 0), shape).copy()
    if spec.delta:
        lows[:-1] = np.minimum(low - high, 0)
        highs[:-1] = np.maximum(high - low, 0)
    return spaces.Box(lows.astype(dtype), highs.astype(dtype), dtype=dtype)


class _History:
    """Ring buffer of the last ``n`` values of one observation; :meth:`push` returns the stack.

    Args:
        space: The stacked Box space (shape ``(n, *value_shape)``).
        delta: Whether rows other than the newest hold differences to the newest.
    """

    def __init__(self, space: spaces.Box, delta: bool) -> None:
        self._n = space.shape[0]
        self._frames = np.zeros(space.shape, dtype=space.dtype)
        # _order[p]: row indices from oldest to newest when the newest value sits in row p.
        self._order = (np.arange(self._n)[None, :] + np.arange(1, self._n + 1)[:, None]) % self._n
        self._delta = delta
        self.clear()

    def clear(self) -> None:
        """Forgets all values (the stack is zero-padded again)."""
        self._frames.fill(0)
        self._newest = self._n - 1
        self._filled = 0

    def push(self, value: np.ndarray) -> np.ndarray:
        """Adds ``value`` as the newest entry and returns a new array ``(n, *value_shape)``, oldest first."""
        self._newest = (self._newest + 1) % self._n
        self._frames[self._newest] = value
        self._filled = min(self._filled + 1, self._n)
        stack = self._frames[self._order[self._newest]]
        if self._delta:
            stack[:-1] -= stack[-1]
            stack[: self._n - self._filled] = 0
        return stack


class ObservationStackWrapper(StepObservationWrapper[EnvType]):
    """Stacks the observations of the last ``stack_steps`` time steps (frame stacking).

    Each ``stack_config`` entry ``{observation, stack_steps, keep_original, tag, delta}``
    turns the observation ``observation`` of shape ``shape`` into an array
    ``(stack_steps, *shape)`` holding the last ``stack_steps`` values, oldest first,
    zero-padded at the start of an episode. With ``delta: true`` every row but the
    newest holds the difference to the newest value (padding rows stay zero) and the
    stack has a float dtype. The stack is stored under ``<observation>-<tag>`` when a
    ``tag`` is given (``keep_original`` then decides whether ``<observation>`` stays),
    otherwise it replaces ``<observation>``. Entries apply in order, so a later entry may
    stack the output of an earlier one.

    An entry applies to every sub-step whose observations have that key; each sub-step
    keeps its own history (all agents of a sub-step share it).

    Args:
        env: The env to wrap.
        stack_config: The stacking entries (``observation`` and ``stack_steps`` are
            required; ``keep_original`` and ``delta`` default to False, ``tag`` to None).
    """

    def __init__(self, env: EnvType, stack_config: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(env)
        self.stack_config = [_parse_entry(entry, index) for index, entry in enumerate(to_plain_config(stack_config))]
        self._observation_spaces = inner_spaces_dict(env, "observation")
        # Per sub-step: (spec, stacked space) of every entry that applies there, in config order.
        self._plans: dict[StepKeyType, list[tuple[_StackSpec, spaces.Box]]] = {
            key: [] for key in self._observation_spaces
        }
        for spec in self.stack_config:
            self._add_to_plans(spec)
        self._histories = self._new_histories()
        self._conversion_histories = self._new_histories()

    def _add_to_plans(self, spec: _StackSpec) -> None:
        """Applies ``spec`` to the spaces of every sub-step that has its observation key."""
        applied = False
        for step_key, space in self._observation_spaces.items():
            if not isinstance(space, spaces.Dict) or spec.observation not in space.spaces:
                continue
            stacked = _stacked_space(space.spaces[spec.observation], spec, step_key)
            entries = dict(space.spaces)
            entries[spec.output_key] = stacked
            if spec.tag is not None and not spec.keep_original:
                del entries[spec.observation]
            self._observation_spaces[step_key] = spaces.Dict(list(entries.items()))
            self._plans[step_key].append((spec, stacked))
            applied = True
        if not applied:
            raise unknown_key_error(_OWNER, "observation", spec.observation, self._observation_spaces)

    def _new_histories(self) -> dict[StepKeyType, list[tuple[_StackSpec, _History]]]:
        return {
            step_key: [(spec, _History(space, spec.delta)) for spec, space in plan]
            for step_key, plan in self._plans.items()
        }

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Space]:
        """Observation spaces per sub-step, with the stacked entries."""
        return self._observation_spaces

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Resets the inner env and clears the histories."""
        observation, info = self.env.reset(seed=seed, options=options)
        _clear(self._histories)
        return self.observation(observation), info

    def step_observation(self, observation: dict[str, Any], step_key: StepKeyType) -> dict[str, Any]:
        """Adds the observation to the histories of sub-step ``step_key`` and returns it with the stacks."""
        return _stack(observation, self._histories[step_key])

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[Optional[dict[StepKeyType, Any]], Optional[dict[StepKeyType, Any]]]:
        """Stacks converted observations with a history of their own (cleared at each episode's first step).

        Call it for the steps of an episode in order, as trajectory conversion does.
        """
        observations, actions = self.env.get_observation_and_action_dicts(
            maze_state, maze_action, first_step_in_episode
        )
        if first_step_in_episode:
            _clear(self._conversion_histories)
        if observations is not None:
            observations = {
                step_key: _stack(value, self._conversion_histories[step_key])
                for step_key, value in observations.items()
            }
        return observations, actions


def _clear(histories: dict[StepKeyType, list[tuple[_StackSpec, _History]]]) -> None:
    for plan in histories.values():
        for _, history in plan:
            history.clear()


def _stack(observation: dict[str, Any], plan: list[tuple[_StackSpec, _History]]) -> dict[str, Any]:
    """Returns a new observation dict with every stack of ``plan`` pushed and inserted."""
    if not plan:
        return observation
    stacked = dict(observation)
    for spec, history in plan:
        stacked[spec.output_key] = history.push(stacked[spec.observation])
        if spec.tag is not None and not spec.keep_original:
            del stacked[spec.observation]
    return stacked
