"""Recorded episodes for the dataset tests: LunarLander heuristic and flat Cutting-2D greedy runs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from maze.env.agent.default_policy import DefaultPolicy
from maze.env.agent.lunar_lander_heuristic import LunarLanderHeuristicPolicy
from maze.env.examples.cutting_2d import SIMPLE_PROBLEM_DEMAND, FlatCutting2DGreedyPolicy, maze_env_factory
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.trajectory_recording import SimpleTrajectoryRecordingSetup, TrajectoryWriterRegistry
from maze.env.wrappers.time_limit import TimeLimitWrapper
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper


@dataclass
class Recording:
    """Episodes recorded into ``directory``: one step count per episode, in recording order."""

    directory: Path
    episode_steps: list[int]


def record_episodes(env, policy, directory: Path, seeds: list[int]) -> Recording:
    """Runs one episode per seed through a recording wrapper; returns the directory and step counts."""
    recorded = TrajectoryRecordingWrapper(env)
    steps_per_episode = []
    with SimpleTrajectoryRecordingSetup(directory):
        for seed in seeds:
            observation, _ = recorded.reset(seed=seed)
            steps, done = 0, False
            while not done:
                action = policy.compute_action(observation, actor_id=recorded.actor_id(), deterministic=True)
                observation, _, terminated, truncated, _ = recorded.step(action)
                steps, done = steps + 1, terminated or truncated
            steps_per_episode.append(steps)
        recorded.close()
    return Recording(directory, steps_per_episode)


@pytest.fixture(autouse=True)
def _no_leftover_writers():
    TrajectoryWriterRegistry.clear()
    yield
    TrajectoryWriterRegistry.clear()


@pytest.fixture(scope="session")
def box2d() -> None:
    """Skips tests of LunarLander where the box2d extra (Box2D and pygame) is not installed."""
    for module in ("Box2D", "pygame"):
        pytest.importorskip(module, reason="LunarLander needs the box2d extra: pip install 'maze-env[box2d]'")


@pytest.fixture(scope="session")
def lunar_lander_recording(box2d, tmp_path_factory) -> Recording:
    """Three LunarLander-v3 heuristic episodes in ``trajectory_data/`` (skipped without Box2D)."""
    directory = tmp_path_factory.mktemp("lunar_lander") / "trajectory_data"
    return record_episodes(GymMazeEnv("LunarLander-v3"), LunarLanderHeuristicPolicy(), directory, [0, 1, 2])


@pytest.fixture(scope="session")
def cutting_recording(tmp_path_factory) -> Recording:
    """Two flat Cutting-2D greedy episodes of 9 steps (truncated by a time limit)."""
    env = TimeLimitWrapper(maze_env_factory(20, (4, 3), SIMPLE_PROBLEM_DEMAND), 9)
    directory = tmp_path_factory.mktemp("cutting") / "trajectory_data"
    return record_episodes(env, DefaultPolicy({0: FlatCutting2DGreedyPolicy()}), directory, [0, 1])
