"""Statistics overhead: ``LogStatsWrapper(GymMazeEnv("CartPole-v1"))`` against raw gymnasium.

Case (against its peer, measured interleaved in this one process):

* ``LogStatsWrapper(GymMazeEnv)`` vs ``gymnasium.make("CartPole-v1")`` — target cost ratio
  ≤ 2.5× (the original framework measured 6.3× on this machine class). The workload
  includes the episode-end aggregation and one epoch reduction per round.

Actions are drawn before timing, so both sides pay only for stepping.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np
from maze.env import GymMazeEnv
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper

from .env_layer import single_env_case
from .harness import Row, interleaved_rates, paired_row, timed_rate

MAX_RATIO = 2.5


def log_stats_case(n_steps: int, actions: list) -> Callable[[], float]:
    """A workload stepping a fresh LogStatsWrapper env through ``actions``, then reducing the epoch."""

    def work() -> int:
        env = LogStatsWrapper.wrap(GymMazeEnv("CartPole-v1"))
        env.reset(seed=0)
        step = env.step
        for index in range(n_steps):
            _, _, terminated, truncated, _ = step(actions[index])
            if terminated or truncated:
                env.reset()
        env.write_epoch_stats()
        return n_steps

    return lambda: timed_rate(work)


def run(n_steps: int, rounds: int) -> list[Row]:
    """Measures the case and its peer and returns the table rows."""
    raw_actions = np.random.default_rng(0).integers(0, 2, size=n_steps).tolist()
    dict_actions = [{"action": action} for action in raw_actions]
    cases = {
        "gymnasium CartPole-v1": single_env_case(gym.make("CartPole-v1"), raw_actions, n_steps),
        "LogStatsWrapper(GymMazeEnv)": log_stats_case(n_steps, dict_actions),
    }
    rates = interleaved_rates(cases, rounds)
    return [paired_row(rates, "LogStatsWrapper(GymMazeEnv)", "gymnasium CartPole-v1", MAX_RATIO)]
