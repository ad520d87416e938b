"""Estimating, obtaining and distributing observation normalization statistics."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

import gymnasium as gym
import numpy as np
from maze.env.agent.policy import Policy
from maze.env.errors import ConfigurationError
from maze.env.wrappers.normalization.observation_normalization_wrapper import ObservationNormalizationWrapper
from maze.env.wrappers.normalization.statistics_io import NormalizationStatisticsType

__all__ = [
    "find_normalization_wrapper",
    "estimate_observation_normalization_statistics",
    "obtain_normalization_statistics",
    "make_normalized_env_factory",
]


def find_normalization_wrapper(env: Any) -> ObservationNormalizationWrapper:
    """Returns the outermost :class:`ObservationNormalizationWrapper` of a wrapper stack.

    Raises:
        ConfigurationError: When the stack has none.
    """
    current = env
    while current is not None:
        if issubclass(type(current), ObservationNormalizationWrapper):
            return current
        is_wrapper = getattr(type(current), "_is_maze_wrapper", False) or isinstance(current, gym.Wrapper)
        current = vars(current).get("env") if is_wrapper else None
    raise ConfigurationError(
        f"the env {env!r} has no ObservationNormalizationWrapper; wrap it with "
        "ObservationNormalizationWrapper.wrap(env, ...) first"
    )


def estimate_observation_normalization_statistics(
    env: Any, n_samples: int = 1000, keys: Optional[Sequence[str]] = None, seed: Optional[int] = None
) -> NormalizationStatisticsType:
    """Estimates statistics by sampling the env below the normalization wrapper.

    The wrapper's ``sampling_policy`` acts for ``n_samples`` observations (each sub-step's
    observation counts as one; episodes are reset as they end); each key's strategy then
    estimates statistics from the observations of that key. The statistics are returned,
    not set. The sampled env is left mid-episode: reset the env before using it.

    Args:
        env: An env whose stack contains an :class:`ObservationNormalizationWrapper`.
        n_samples: Observations to collect.
        keys: Keys to estimate; default: the keys that have no statistics yet.
        seed: Seeds the first reset and the sampling policy.

    Returns:
        ``{observation key: {statistic name: array}}`` for ``keys``.
    """
    wrapper = find_normalization_wrapper(env)
    keys = wrapper.missing_statistics_keys() if keys is None else list(keys)
    unknown = [key for key in keys if key not in wrapper.strategies]
    if unknown:
        raise ConfigurationError(
            f"cannot estimate statistics of {unknown}; normalized keys are {list(wrapper.strategies)}"
        )
    if not keys:
        return {}
    if n_samples < 1:
        raise ValueError(f"n_samples must be positive, got {n_samples}")
    observations = _collect_observations(wrapper.env, wrapper.sampling_policy, keys, n_samples, seed)
    return {key: wrapper.strategies[key].estimate_stats(observations[key]) for key in keys}


def obtain_normalization_statistics(
    env: Any, n_samples: int = 1000, seed: Optional[int] = None
) -> NormalizationStatisticsType:
    """Estimates the statistics the normalization wrapper lacks, sets them and returns all.

    Keys that already have statistics (given or loaded) keep them.

    Args:
        env: An env whose stack contains an :class:`ObservationNormalizationWrapper`.
        n_samples: Observations to collect when some statistics are missing.
        seed: Seeds the sampling (see :func:`estimate_observation_normalization_statistics`).

    Returns:
        The statistics of every normalized key.
    """
    wrapper = find_normalization_wrapper(env)
    estimated = estimate_observation_normalization_statistics(wrapper, n_samples, seed=seed)
    if estimated:
        wrapper.set_normalization_statistics(estimated)
    return wrapper.get_statistics()


class _NormalizedEnvFactory:
    """An env factory that sets fixed normalization statistics (a class, so it pickles)."""

    def __init__(self, env_factory: Callable[[], Any], statistics: Mapping[str, Mapping[str, Any]]) -> None:
        self.env_factory = env_factory
        self.statistics = statistics

    def __call__(self) -> Any:
        env = self.env_factory()
        find_normalization_wrapper(env).set_normalization_statistics(self.statistics)
        return env


def make_normalized_env_factory(
    env_factory: Callable[[], Any], normalization_statistics: Optional[Mapping[str, Mapping[str, Any]]]
) -> Callable[[], Any]:
    """Wraps an env factory so that every env it makes gets ``normalization_statistics``.

    Args:
        env_factory: Makes an env whose stack contains an ObservationNormalizationWrapper.
        normalization_statistics: Statistics to set; None returns ``env_factory`` itself.
    """
    if normalization_statistics is None:
        return env_factory
    return _NormalizedEnvFactory(env_factory, normalization_statistics)


def _collect_observations(
    env: Any, policy: Policy, keys: Sequence[str], n_samples: int, seed: Optional[int]
) -> dict[str, np.ndarray]:
    """Steps ``env`` with ``policy`` and stacks the observations of ``keys``.

    Returns:
        Per key, the observations stacked to shape ``(N_key, *observation_shape)``.
    """
    if seed is not None:
        policy.seed(seed)
    samples: dict[str, list[np.ndarray]] = {key: [] for key in keys}
    observation, _ = env.reset(seed=seed)
    policy.reset()
    for remaining in range(n_samples - 1, -1, -1):
        for key in keys:
            if key in observation:
                samples[key].append(np.array(observation[key]))
        if not remaining:
            break
        action = policy.compute_action(
            observation,
            maze_state=env.get_maze_state() if policy.needs_state() else None,
            env=env if policy.needs_env() else None,
            actor_id=env.actor_id(),
        )
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            observation, _ = env.reset()
            policy.reset()
    empty = [key for key, values in samples.items() if not values]
    if empty:
        raise RuntimeError(
            f"sampling {n_samples} observations never produced the observations {empty}; increase n_samples or "
            "give their statistics manually"
        )
    return {key: np.stack(values) for key, values in samples.items()}
