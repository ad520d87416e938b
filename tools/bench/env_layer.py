"""Env-layer overhead: maze's env stack against raw gymnasium, CartPole-v1, random actions.

Cases (each against its peer, measured interleaved in this one process):

* ``GymMazeEnv`` vs ``gymnasium.make("CartPole-v1")`` — target cost ratio ≤ 1.5×
  (the original framework measured 2.05× on this machine class).
* ``GymMazeEnv`` + ``TimeLimitWrapper`` + ``ObservationNormalizationWrapper`` vs raw
  gymnasium — target ≤ 2×.
* ``SequentialVectorEnv`` of 8 GymMazeEnvs vs gymnasium's ``SyncVectorEnv`` of 8 envs.

Actions are drawn before timing, so both sides pay only for stepping.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np
from maze.env import GymMazeEnv, SequentialVectorEnv, TimeLimitWrapper
from maze.env.wrappers.normalization import ObservationNormalizationWrapper, obtain_normalization_statistics

from .harness import Row, interleaved_rates, paired_row, peak_rss_growth, timed_rate

N_VECTOR_ENVS = 8


def single_env_case(env: gym.Env, actions: list, n_steps: int) -> Callable[[], float]:
    """A workload stepping one env through ``n_steps`` pre-drawn actions, resetting on episode end."""

    def work() -> int:
        env.reset(seed=0)
        step = env.step
        for index in range(n_steps):
            _, _, terminated, truncated, _ = step(actions[index])
            if terminated or truncated:
                env.reset()
        return n_steps

    return lambda: timed_rate(work)


def vector_env_case(envs, actions: list, n_steps: int) -> Callable[[], float]:
    """A workload stepping a vector env (which resets finished envs itself); counts env steps."""

    def work() -> int:
        envs.reset(seed=0)
        step = envs.step
        for index in range(n_steps):
            step(actions[index])
        return n_steps * N_VECTOR_ENVS

    return lambda: timed_rate(work)


def normalized_maze_env() -> gym.Env:
    """GymMazeEnv behind a TimeLimit and mean/std observation normalization (stats estimated)."""
    env = TimeLimitWrapper.wrap(GymMazeEnv("CartPole-v1"), max_episode_steps=500)
    env = ObservationNormalizationWrapper.wrap(
        env,
        default_strategy="maze.env.wrappers.normalization.MeanZeroStdOneObservationNormalizationStrategy",
        default_strategy_config={"clip_range": [-3, 3], "axis": [0]},
        default_statistics=None,
        statistics_dump="statistics.npz",
        sampling_policy={"_target_": "maze.env.RandomPolicy", "action_spaces_dict": env.action_spaces_dict},
        exclude=None,
        manual_config=None,
    )
    obtain_normalization_statistics(env, n_samples=1000)
    return env


def run(n_steps: int, rounds: int) -> list[Row]:
    """Measures all cases and returns the table rows."""
    rng = np.random.default_rng(0)
    raw_actions = rng.integers(0, 2, size=n_steps).tolist()
    dict_actions = [{"action": action} for action in raw_actions]
    vector_steps = n_steps // N_VECTOR_ENVS
    raw_vector_actions = [rng.integers(0, 2, size=N_VECTOR_ENVS) for _ in range(vector_steps)]
    dict_vector_actions = [{"action": actions} for actions in raw_vector_actions]

    cases = {
        "gymnasium CartPole-v1": single_env_case(gym.make("CartPole-v1"), raw_actions, n_steps),
        "GymMazeEnv": single_env_case(GymMazeEnv("CartPole-v1"), dict_actions, n_steps),
        "GymMazeEnv + TimeLimit + normalization": single_env_case(normalized_maze_env(), dict_actions, n_steps),
        "gymnasium SyncVectorEnv (8)": vector_env_case(
            gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * N_VECTOR_ENVS),
            raw_vector_actions,
            vector_steps,
        ),
        "maze SequentialVectorEnv (8)": vector_env_case(
            SequentialVectorEnv([lambda: GymMazeEnv("CartPole-v1")] * N_VECTOR_ENVS), dict_vector_actions, vector_steps
        ),
    }
    rates = interleaved_rates(cases, rounds)
    memory = peak_rss_growth(cases)
    return [
        paired_row(rates, "GymMazeEnv", "gymnasium CartPole-v1", 1.5, memory=memory),
        paired_row(rates, "GymMazeEnv + TimeLimit + normalization", "gymnasium CartPole-v1", 2.0, memory=memory),
        paired_row(rates, "maze SequentialVectorEnv (8)", "gymnasium SyncVectorEnv (8)", None, memory=memory),
    ]
