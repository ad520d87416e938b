"""Part 4 - events and KPIs: statistics of cutting and inventory events, and raw pieces per step.

The LogStatsWrapper collects the env's events (and, through the monitoring wrapper
below it, the agent's actions); when the ``with`` block ends, one table with the prefix
``main`` is printed: action statistics, reward statistics, CuttingEvents,
InventoryEvents and the KPI ``raw_piece_usage_per_step``. The random actions pick among the stocked
pieces (instead of all 200 slots, which are nearly all empty) so that cuts happen.
"""

from typing import Any

from maze.env.examples.cutting_2d import maze_env_factory
from maze.env.log_stats.logging_setup import SimpleStatsLoggingSetup
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.monitoring_wrapper import MazeEnvMonitoringWrapper


def log_random_steps(env: Any, n_steps: int = 15, seed: int = 0) -> None:
    """Runs ``n_steps`` random steps of ``env`` with statistics logging; prints the table at the end."""
    env = MazeEnvMonitoringWrapper(env, observation_logging=False, action_logging=True, reward_logging=False)
    env = LogStatsWrapper(env, logging_prefix="main")
    with SimpleStatsLoggingSetup(env):
        observation, _ = env.reset(seed=seed)
        env.action_space.seed(seed)
        for _ in range(n_steps):
            action = env.action_space.sample()
            action["piece_idx"] %= int(observation["inventory_size"][0])  # a stocked piece
            observation, *_ = env.step(action)


def main() -> None:
    log_random_steps(maze_env_factory(max_pieces_in_inventory=200, raw_piece_size=(100, 100), static_demand=(30, 15)))


if __name__ == "__main__":
    main()
