"""Statistics of the envs inside vector envs, merged into one aggregator."""

from __future__ import annotations

import sys

import cloudpickle
import numpy as np
import pytest
from maze.env import ConfigurationError, EnvWorkerError, GymMazeEnv, SequentialVectorEnv, SubprocVectorEnv
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.log_stats import LogStatsKey
from maze.env.log_stats.vector_stats import collect_episode_stats
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper

N_ENVS = 4

# Test modules are not importable by worker processes: ship this module's functions by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def make_env():
    return LogStatsWrapper.wrap(GymMazeEnv("CartPole-v1"))


def finished_episodes(vector_env, n_steps: int) -> tuple[int, int]:
    """Steps with random actions; returns (finished episodes, their total steps) over all envs."""
    rng = np.random.default_rng(0)
    vector_env.reset(seed=0)
    lengths = np.zeros(N_ENVS, dtype=int)
    episodes = steps = 0
    for _ in range(n_steps):
        _, _, terminated, truncated, _ = vector_env.step({"action": rng.integers(0, 2, size=N_ENVS)})
        lengths += 1
        done = terminated | truncated
        episodes += int(done.sum())
        steps += int(lengths[done].sum())
        lengths[done] = 0
    return episodes, steps


@pytest.mark.parametrize("vector_env_class", [SequentialVectorEnv, SubprocVectorEnv])
def test_epoch_counts_the_finished_episodes_of_all_envs(vector_env_class):
    with vector_env_class([make_env] * N_ENVS) as vector_env:
        episodes, steps = finished_episodes(vector_env, 150)
        aggregator = LogStatsAggregator()
        assert collect_episode_stats(vector_env, aggregator) == episodes
        stats = aggregator.reduce()
        assert episodes > 2 * N_ENVS
        assert stats[LogStatsKey("BaseEnvEvents", "reward", "episode_count")] == episodes
        assert stats[LogStatsKey("BaseEnvEvents", "reward", "total_step_count")] == steps
        # Taking moves the statistics out: a second collection finds nothing new.
        assert collect_episode_stats(vector_env, aggregator) == 0


def test_envs_without_log_stats_wrapper_are_named():
    with SequentialVectorEnv([lambda: GymMazeEnv("CartPole-v1")]) as vector_env:
        with pytest.raises((ConfigurationError, EnvWorkerError), match="take_episode_stats"):
            collect_episode_stats(vector_env, LogStatsAggregator())
    with pytest.raises(ConfigurationError, match="call"):
        collect_episode_stats(object(), LogStatsAggregator())
