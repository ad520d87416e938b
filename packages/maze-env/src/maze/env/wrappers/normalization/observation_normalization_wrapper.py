"""ObservationNormalizationWrapper: normalizes observations with estimated or given statistics."""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, Optional, Union

from gymnasium import spaces
from maze.env.agent.policy import Policy
from maze.env.agent.random_policy import RandomPolicy
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import ConfigType, Factory, resolve_target, to_plain_config
from maze.env.utils.finite import NonFiniteValueError, find_non_finite, is_all_finite
from maze.env.utils.spaces import ordered_dict_space
from maze.env.wrappers._shared import check_config_keys, instantiate_for_space
from maze.env.wrappers.normalization.statistics_io import (
    NormalizationStatisticsType,
    load_normalization_statistics,
    save_normalization_statistics,
)
from maze.env.wrappers.normalization.strategies import ObservationNormalizationStrategy
from maze.env.wrappers.wrapper import ObservationWrapper

__all__ = ["ObservationNormalizationWrapper", "STRATEGIES_MODULE"]

STRATEGIES_MODULE = "maze.env.wrappers.normalization.strategies"
"""Module whose strategy class names may be used as short strategy names."""

_STRATEGY_FACTORY = Factory(ObservationNormalizationStrategy, search_modules=[STRATEGIES_MODULE])
_POLICY_FACTORY = Factory(Policy, search_modules=["maze.env"])
_MANUAL_KEYS = ("strategy", "strategy_config", "statistics")
_OWNER = "ObservationNormalizationWrapper"


class ObservationNormalizationWrapper(ObservationWrapper):
    """Normalizes every (non-excluded) observation with a per-key normalization strategy.

    Statistics come from ``default_statistics``, from ``manual_config[key]["statistics"]``,
    from :meth:`set_normalization_statistics` / :meth:`load_statistics`, or are estimated by
    sampling the env below this wrapper with ``sampling_policy`` (see
    :func:`~maze.env.wrappers.normalization.normalization_utils.obtain_normalization_statistics`).
    Until every normalized key has statistics, ``reset`` and ``step`` raise.

    Normalized observations are float32 Boxes whose bounds are the normalized (and
    clipped) bounds of the original space. Strategies are per observation key: a key that
    appears in several sub-steps of a structured env shares one strategy (and so must have
    the same shape there).

    Args:
        env: The env to wrap.
        default_strategy: Strategy of keys without a manual config: a class, a dotted path
            or a short name such as ``MeanZeroStdOneObservationNormalizationStrategy``.
        default_strategy_config: Keyword arguments of the default strategy
            (``{clip_range: [low|null, high|null], axis: null|int|[ints]}``).
        default_statistics: Statistics of keys without a manual config (e.g.
            ``{min: 0, max: 255}``); None to estimate them.
        statistics_dump: The ``.npz`` file :meth:`dump_statistics` writes by default.
        sampling_policy: Policy (or config) used to sample observations for estimating
            statistics; a ``RandomPolicy`` of the wrapped env's action spaces by default.
            Configs whose target takes ``action_spaces_dict`` receive the wrapped env's.
        exclude: Observation keys that pass through unchanged. Keys this env does not have are
            ignored with a warning, so one wrapper config serves envs with and without, e.g.,
            action masks.
        manual_config: Per-key overrides ``{key: {strategy, strategy_config, statistics}}``;
            missing fields fall back to the defaults, except that a key without
            ``statistics`` has its statistics estimated.

    Raises:
        ConfigurationError: For unknown observation keys, strategies or config keys, or
            statistics that do not fit the strategy.
    """

    def __init__(
        self,
        env: Any,
        default_strategy: Union[str, type[ObservationNormalizationStrategy]] = (
            "MeanZeroStdOneObservationNormalizationStrategy"
        ),
        default_strategy_config: Optional[Mapping[str, Any]] = None,
        default_statistics: Optional[Mapping[str, Any]] = None,
        statistics_dump: str = "statistics.npz",
        sampling_policy: ConfigType = None,
        exclude: Optional[Sequence[str]] = None,
        manual_config: Optional[Mapping[str, Mapping[str, Any]]] = None,
    ) -> None:
        super().__init__(env)
        if not str(statistics_dump).endswith(".npz"):
            raise ConfigurationError(
                f"statistics_dump {statistics_dump!r} must end with .npz: statistics are stored as plain data, "
                "never as pickles (e.g. statistics_dump: statistics.npz)"
            )
        self.statistics_dump = statistics_dump
        key_spaces = _spaces_by_observation_key(env.observation_spaces_dict)
        self.exclude = tuple(to_plain_config(exclude) or ())
        manual_config = dict(to_plain_config(manual_config) or {})
        _warn_about_missing_excluded_keys(self.exclude, env.observation_spaces_dict)
        check_config_keys(f"{_OWNER} manual_config", "observation", manual_config, env.observation_spaces_dict)
        both = sorted(set(self.exclude) & set(manual_config))
        if both:
            raise ConfigurationError(f"observations {both} are both excluded and in manual_config; pick one")
        defaults = {
            "strategy": default_strategy,
            "strategy_config": to_plain_config(default_strategy_config) or {},
            "statistics": to_plain_config(default_statistics),
        }
        self._strategies: dict[str, ObservationNormalizationStrategy] = {
            key: _build_strategy(key, space, _manual_entry(key, manual_config, defaults))
            for key, space in key_spaces.items()
            if key not in self.exclude
        }
        self._normalizers = {key: strategy.normalize_and_process_value for key, strategy in self._strategies.items()}
        self._clipped_keys = tuple(
            key for key, strategy in self._strategies.items() if any(bound is not None for bound in strategy.clip_range)
        )
        """Keys whose clipping would hide a non-finite value: checked before normalizing."""
        # The normalized keys of every sub-step, to check the keys of set_normalization_statistics.
        self._normalized_spaces_dict = {
            step_key: spaces.Dict({key: sub for key, sub in space.spaces.items() if key in self._strategies})
            for step_key, space in env.observation_spaces_dict.items()
        }
        self.sampling_policy: Policy = _build_sampling_policy(sampling_policy, env.action_spaces_dict)
        self._refresh()

    # --- statistics ----------------------------------------------------------------------

    @property
    def strategies(self) -> Mapping[str, ObservationNormalizationStrategy]:
        """The strategy of every normalized observation key (read-only)."""
        return MappingProxyType(self._strategies)

    def missing_statistics_keys(self) -> list[str]:
        """Normalized observation keys that have no statistics yet."""
        return list(self._missing)

    def set_normalization_statistics(self, statistics: Mapping[str, Mapping[str, Any]]) -> None:
        """Sets the statistics of some or all normalized keys.

        Args:
            statistics: ``{observation key: {statistic name: value}}``.

        Raises:
            ConfigurationError: For a key that is not normalized or statistics that do
                not fit the key's strategy.
        """
        statistics = to_plain_config(statistics)
        check_config_keys(
            f"{_OWNER}.set_normalization_statistics", "normalized observation", statistics, self._normalized_spaces_dict
        )
        for key, key_statistics in statistics.items():
            _set_statistics(key, self._strategies[key], key_statistics)
        self._refresh()

    def get_statistics(self) -> NormalizationStatisticsType:
        """The statistics of every key that has some (copies)."""
        return {
            key: strategy.get_statistics() for key, strategy in self._strategies.items() if strategy.is_initialized()
        }

    def dump_statistics(self, path: Optional[Union[str, os.PathLike]] = None) -> Path:
        """Writes the statistics to ``path`` (default :attr:`statistics_dump`) as ``.npz``."""
        if self._missing:
            raise self._missing_statistics_error("dump them")
        return save_normalization_statistics(self.get_statistics(), self.statistics_dump if path is None else path)

    def load_statistics(self, path: Optional[Union[str, os.PathLike]] = None) -> NormalizationStatisticsType:
        """Loads statistics from ``path`` (default :attr:`statistics_dump`), sets and returns them."""
        statistics = load_normalization_statistics(self.statistics_dump if path is None else path)
        self.set_normalization_statistics(statistics)
        return statistics

    # --- wrapper -------------------------------------------------------------------------

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Dict]:
        """Observation space per sub-step key, normalized keys as float32 Boxes."""
        return self._observation_spaces_dict

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        """Normalizes the observation (excluded keys pass through)."""
        if self._missing:
            raise self._missing_statistics_error("step or reset the env")
        normalizers = self._normalizers
        for key in self._clipped_keys:
            if key in observation and not is_all_finite(observation[key]):
                self._raise_non_finite(observation)
        return {key: normalizers[key](value) if key in normalizers else value for key, value in observation.items()}

    def _raise_non_finite(self, observation: dict[str, Any]) -> None:
        culprit = find_non_finite({key: observation[key] for key in self._clipped_keys if key in observation})
        raise NonFiniteValueError(
            f"{type(self.env).__name__} returned the observation {culprit.describe() if culprit else ''} "
            "(not finite); ObservationNormalizationWrapper stops here because its clipping would hide it. Fix "
            "the env's observation, or exclude the key from normalization"
        )

    def _refresh(self) -> None:
        """Recomputes what depends on the statistics: missing keys and the spaces."""
        self._missing = tuple(key for key, strategy in self._strategies.items() if not strategy.is_initialized())
        strategies = self._strategies
        self._observation_spaces_dict = {
            step_key: ordered_dict_space(
                {
                    key: strategies[key].normalized_space(sub_space) if key in strategies else sub_space
                    for key, sub_space in space.spaces.items()
                }
            )
            for step_key, space in self.env.observation_spaces_dict.items()
        }

    def _missing_statistics_error(self, action: str) -> RuntimeError:
        return RuntimeError(
            f"ObservationNormalizationWrapper has no normalization statistics for the observations "
            f"{list(self._missing)}, so it cannot {action}. Estimate them with obtain_normalization_statistics(env, "
            "n_samples) (maze.env.wrappers.normalization), load them with env.load_statistics(path) or "
            "env.set_normalization_statistics(stats), or give default_statistics / manual_config[<key>].statistics"
        )


def _spaces_by_observation_key(observation_spaces_dict: Mapping[StepKeyType, spaces.Dict]) -> dict[str, Any]:
    """The space of every observation key of every sub-step (one shape per key)."""
    key_spaces: dict[str, Any] = {}
    for step_key, space in observation_spaces_dict.items():
        for key, sub_space in space.spaces.items():
            known = key_spaces.setdefault(key, sub_space)
            if known.shape != sub_space.shape:
                raise ConfigurationError(
                    f"observation {key!r} has shape {known.shape} in one sub-step and {sub_space.shape} in sub-step "
                    f"{step_key!r}; normalization shares one strategy per key, so give the keys distinct names or "
                    "exclude them"
                )
    return key_spaces


def _manual_entry(key: str, manual_config: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The strategy, its config and the statistics of ``key`` (manual fields over defaults)."""
    if key not in manual_config:
        return dict(defaults)
    entry = manual_config[key] or {}
    unknown = [name for name in entry if name not in _MANUAL_KEYS]
    if unknown:
        raise ConfigurationError(f"manual_config[{key!r}] has unknown keys {unknown}; allowed are {list(_MANUAL_KEYS)}")
    return {
        "strategy": entry.get("strategy", defaults["strategy"]),
        "strategy_config": entry.get("strategy_config", defaults["strategy_config"]) or {},
        "statistics": entry.get("statistics"),
    }


def _build_strategy(key: str, space: spaces.Space, entry: Mapping[str, Any]) -> ObservationNormalizationStrategy:
    strategy = instantiate_for_space(
        _STRATEGY_FACTORY,
        entry["strategy"],
        space,
        entry["strategy_config"],
        f"normalization strategy of observation {key!r}",
    )
    if entry["statistics"] is not None:
        _set_statistics(key, strategy, entry["statistics"])
    return strategy


def _set_statistics(key: str, strategy: ObservationNormalizationStrategy, statistics: Mapping[str, Any]) -> None:
    try:
        strategy.set_statistics(statistics)
    except ConfigurationError as error:
        raise ConfigurationError(f"statistics of observation {key!r}: {error}") from None


def _build_sampling_policy(config: ConfigType, action_spaces_dict: Mapping[StepKeyType, spaces.Space]) -> Policy:
    """Instantiates the sampling policy; targets taking ``action_spaces_dict`` get the env's."""
    config = to_plain_config(config)
    if config is None:
        return RandomPolicy(action_spaces_dict)
    if isinstance(config, Mapping) and "_target_" in config:
        target = resolve_target(config["_target_"], _POLICY_FACTORY.search_modules)
        arguments = {name: value for name, value in config.items() if name != "_target_"}
    elif isinstance(config, type):
        target, arguments = config, {}
    else:
        return _POLICY_FACTORY.instantiate(config)
    if "action_spaces_dict" not in arguments and "action_spaces_dict" in inspect.signature(target).parameters:
        arguments["action_spaces_dict"] = action_spaces_dict
    return _POLICY_FACTORY.instantiate(target, **arguments)


def _warn_about_missing_excluded_keys(exclude: Sequence[str], spaces_dict: Mapping[StepKeyType, spaces.Dict]) -> None:
    """Warns about excluded keys that exist in no sub-step (a typo would otherwise go unnoticed)."""
    for key in exclude:
        if not any(key in space.spaces for space in spaces_dict.values()):
            existing = "; ".join(f"sub-step {step!r}: {list(space.spaces)}" for step, space in spaces_dict.items())
            warnings.warn(
                f"{_OWNER} exclude: the observation key {key!r} exists in no sub-step of the wrapped env "
                f"({existing}); nothing to exclude, ignored (check the spelling if the env should have it)",
                stacklevel=3,
            )
