"""Statistics overhead: ``LogStatsWrapper(GymMazeEnv("CartPole-v1"))`` against raw gymnasium.

Case (against its peer, measured interleaved in this one process):

* ``LogStatsWrapper(GymMazeEnv)`` vs ``gymnasium.make("CartPole-v1")`` — target cost ratio
  ≤ 2.5× (the original framework measured 6.3× on this machine class). The workload
  includes the episode-end aggregation and one epoch reduction per round.
* ``LogStatsWrapper(MazeEnvMonitoringWrapper(Cutting-2D))`` vs the unwrapped Cutting-2D
  MazeEnv (200 pieces, raw 100×100, demand (30, 15); episodes of 200 steps) — target
  ≤ 1.5×. The monitoring wrapper logs actions and rewards, not observations (the
  documented ``vector_obs`` training setting). Actions pick among the first three
  inventory slots, so cuts, replenishments and invalid actions all occur.

Actions are drawn before timing, so both sides pay only for stepping.
"""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
import numpy as np
from maze.env import GymMazeEnv
from maze.env.examples.cutting_2d import maze_env_factory
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.monitoring_wrapper import MazeEnvMonitoringWrapper

from .env_layer import single_env_case
from .harness import Row, interleaved_rates, paired_row, peak_rss_growth, timed_rate

MAX_RATIO = 2.5
CUTTING_MAX_RATIO = 1.5
CUTTING_EPISODE_STEPS = 200


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


def cutting_case(wrap: bool, n_steps: int, actions: list) -> Callable[[], float]:
    """A workload stepping a Cutting-2D env (statistics-wrapped or bare) in 200-step episodes."""

    def work() -> int:
        env = maze_env_factory(max_pieces_in_inventory=200, raw_piece_size=(100, 100), static_demand=(30, 15))
        if wrap:
            env = LogStatsWrapper.wrap(
                MazeEnvMonitoringWrapper.wrap(env, observation_logging=False, action_logging=True, reward_logging=True)
            )
        env.reset(seed=0)
        step = env.step
        for index in range(n_steps):
            step(actions[index])
            if index % CUTTING_EPISODE_STEPS == CUTTING_EPISODE_STEPS - 1:
                env.reset()
        if wrap:
            env.write_epoch_stats()
        return n_steps

    return lambda: timed_rate(work)


def cutting_actions(n_steps: int, rng: np.random.Generator) -> list[dict]:
    """Random Cutting-2D actions on the first three inventory slots."""
    return [
        {"piece_idx": int(rng.integers(3)), "cut_rotation": int(rng.integers(2)), "cut_order": int(rng.integers(2))}
        for _ in range(n_steps)
    ]


def run(n_steps: int, rounds: int) -> list[Row]:
    """Measures the case and its peer and returns the table rows."""
    raw_actions = np.random.default_rng(0).integers(0, 2, size=n_steps).tolist()
    dict_actions = [{"action": action} for action in raw_actions]
    cutting_steps = n_steps // 4  # a Cutting-2D step costs about four CartPole steps
    cutting = cutting_actions(cutting_steps, np.random.default_rng(1))
    cases = {
        "gymnasium CartPole-v1": single_env_case(gym.make("CartPole-v1"), raw_actions, n_steps),
        "LogStatsWrapper(GymMazeEnv)": log_stats_case(n_steps, dict_actions),
        "Cutting-2D MazeEnv": cutting_case(False, cutting_steps, cutting),
        "LogStats + Monitoring (Cutting-2D)": cutting_case(True, cutting_steps, cutting),
    }
    rates = interleaved_rates(cases, rounds)
    memory = peak_rss_growth(cases)
    return [
        paired_row(rates, "LogStatsWrapper(GymMazeEnv)", "gymnasium CartPole-v1", MAX_RATIO, memory=memory),
        paired_row(rates, "LogStats + Monitoring (Cutting-2D)", "Cutting-2D MazeEnv", CUTTING_MAX_RATIO, memory=memory),
    ]
