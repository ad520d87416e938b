"""Helpers of the maze-deploy tests: wrapper configs, a recording stats writer, reference and deployed rollouts."""

from __future__ import annotations

from importlib import resources
from typing import Any, Optional

import gymnasium as gym
import pytest
import yaml
from maze.deploy import AgentDeployment
from maze.env.agent.policy import Policy
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.writers import LogStatsWriter
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.wrapper_factory import WrapperFactory

CARTPOLE_STATISTICS = {"mean": [0.0, 0.0, 0.0, 0.0], "std": [1.0, 0.5, 0.1, 0.5]}
"""Fixed normalization statistics of the CartPole observation (as a training run would store them)."""

NORMALIZED = {
    "ObservationNormalizationWrapper": {
        "default_strategy": "MeanZeroStdOneObservationNormalizationStrategy",
        "default_strategy_config": {"clip_range": [-5.0, 5.0]},
        "default_statistics": CARTPOLE_STATISTICS,
    },
}
"""Normalization with fixed statistics."""

NORMALIZED_STACKED = {
    **NORMALIZED,
    "ObservationStackWrapper": {"stack_config": [{"observation": "observation", "stack_steps": 3}]},
    "PreProcessingWrapper": {
        "pre_processor_mapping": [
            {"observation": "observation", "_target_": "FlattenPreProcessor", "config": {"num_flatten_dims": 2}}
        ]
    },
    "MazeEnvMonitoringWrapper": {"observation_logging": False, "action_logging": True, "reward_logging": True},
}
"""Normalization, frame stacking (3 frames, flattened to ``observation-flatten`` of 12 values) and monitoring."""


class RecordingWriter(LogStatsWriter):
    """Keeps every ``(prefix, step, stats)`` write."""

    def __init__(self) -> None:
        self.rows: list[tuple[Optional[str], int, LogStats]] = []

    def write(self, path: Optional[str], step: int, stats: LogStats) -> None:
        self.rows.append((path, step, dict(stats)))

    def values(self, prefix: Optional[str], topic: str, event: str, name: Optional[str] = None) -> list:
        """The values of one ungrouped statistic in the writes under ``prefix``, in write order."""
        return [
            value
            for path, _, stats in self.rows
            if path == prefix
            for key, value in stats.items()
            if (key.topic, key.event, key.name, key.groups) == (topic, event, name, ())
        ]


def cartpole_stack(wrappers: Optional[dict] = None) -> Any:
    """``GymMazeEnv("CartPole-v1")`` with ``wrappers`` and an outermost LogStatsWrapper, for direct rollouts."""
    return LogStatsWrapper.wrap(WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), wrappers))


def direct_rollout(env: Any, policy: Policy, seeds: list[int], deterministic: bool = True) -> list[list[Any]]:
    """Rolls ``policy`` out on ``env`` (one episode per seed); returns the executed MazeActions per episode."""
    episodes = []
    for seed in seeds:
        observation, _ = env.reset(seed=seed)
        policy.reset()
        maze_actions: list[Any] = []
        while True:
            action = policy.compute_action(observation, actor_id=env.actor_id(), deterministic=deterministic)
            observation, _, terminated, truncated, _ = env.step(action)
            maze_actions.append(env.get_maze_action())
            if terminated or truncated:
                break
        episodes.append(maze_actions)
    return episodes


def deployed_rollout(
    agent: AgentDeployment, seeds: list[int], max_steps: Optional[int] = None
) -> tuple[list[list[Any]], list[float]]:
    """The docs' deployment loop: an external gymnasium CartPole drives ``agent.act``, one episode per seed.

    Args:
        agent: The deployment.
        seeds: Seeds of the external env's resets.
        max_steps: Close each episode after this many steps (None: run until it ends).

    Returns:
        The MazeActions per episode and the return of each episode.
    """
    external_env = gym.make("CartPole-v1")
    episodes, returns = [], []
    for seed in seeds:
        maze_state, info = external_env.reset(seed=seed)
        reward, done, total = 0.0, False, 0.0
        maze_actions: list[Any] = []
        while not done and (max_steps is None or len(maze_actions) < max_steps):
            maze_action = agent.act(maze_state, reward, done, info)
            assert external_env.action_space.contains(maze_action)
            maze_actions.append(maze_action)
            maze_state, reward, terminated, truncated, info = external_env.step(maze_action)
            done = terminated or truncated
            total += float(reward)
        agent.close(maze_state, reward, done, info)
        agent.reset()
        episodes.append(maze_actions)
        returns.append(total)
    external_env.close()
    return episodes, returns


def vector_obs_model_config(observation_key: str = "observation") -> dict[str, Any]:
    """The packaged ``vector_obs`` model config with 16 hidden units, mapping ``observation_key`` to its features."""
    config = yaml.safe_load(resources.files("maze.perception.conf.model").joinpath("vector_obs.yaml").read_text())
    builder = config["model_builder"]
    builder["observation_modality_mapping"] = {observation_key: "feature"}
    for modality in ("feature", "hidden"):
        builder["modality_config"][modality]["block_params"]["hidden_units"] = [16]
    return config


def torch_vector_obs_policy(env: Any, observation_key: str = "observation", seed: int = 0) -> Policy:
    """A small ``vector_obs`` TorchPolicy for ``env``'s spaces, built with the maze.perception composers.

    Skips the calling test when the ``torch`` extra (maze-perception) is not installed.
    """
    torch = pytest.importorskip("torch")
    models = pytest.importorskip("maze.perception.models")
    torch.manual_seed(seed)
    config = vector_obs_model_config(observation_key)
    return models.build_model_composer(config, models.SpacesConfig.from_env(env)).torch_policy("cpu")
