"""Aliases for the ``_target_`` paths of the original framework's documentation.

Configs written against the documented module layout (``maze.core.wrappers...``,
``maze.preprocessors...``) keep working: :func:`~maze.env.utils.factory.resolve_target`
looks a path up here first, resolves the path of our class instead and warns once per path
with the new name, so the config can be updated at leisure. The table is explicit: only
the paths below are translated, nothing is guessed.
"""

from __future__ import annotations

import warnings
from typing import Optional

__all__ = ["DOCUMENTED_ALIASES", "translate_documented_path"]

_WRAPPERS = "maze.env.wrappers"
_DATASETS = "maze.rollout.datasets"

DOCUMENTED_ALIASES: dict[str, str] = {
    # env layer
    "maze.core.wrappers.maze_gym_env_wrapper.GymMazeEnv": "maze.env.gym_adapter.gym_maze_env.GymMazeEnv",
    "maze.core.wrappers.maze_gym_env_wrapper.make_gym_maze_env": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env",
    "maze.core.agent.random_policy.RandomPolicy": "maze.env.agent.random_policy.RandomPolicy",
    "maze.core.wrappers.time_limit_wrapper.TimeLimitWrapper": f"{_WRAPPERS}.time_limit.TimeLimitWrapper",
    "maze.core.wrappers.monitoring_wrapper.MazeEnvMonitoringWrapper": f"{_WRAPPERS}.monitoring_wrapper.MazeEnvMonitoringWrapper",
    "maze.core.wrappers.observation_preprocessing.preprocessing_wrapper.PreProcessingWrapper": (
        f"{_WRAPPERS}.preprocessing.preprocessing_wrapper.PreProcessingWrapper"
    ),
    "maze.core.wrappers.observation_normalization.observation_normalization_wrapper.ObservationNormalizationWrapper": (
        f"{_WRAPPERS}.normalization.observation_normalization_wrapper.ObservationNormalizationWrapper"
    ),
    **{
        f"maze.preprocessors.{name}": f"{_WRAPPERS}.preprocessing.preprocessors.{module}.{name}"
        for name, module in (
            ("FlattenPreProcessor", "flatten"),
            ("OneHotPreProcessor", "one_hot"),
            ("ResizeImgPreProcessor", "resize_img"),
            ("Rgb2GrayPreProcessor", "rgb2gray"),
            ("UnSqueezePreProcessor", "un_squeeze"),
            ("TransposePreProcessor", "transpose"),
        )
    },
    # rollouts and datasets
    "maze.core.rollout.parallel_rollout_runner.ParallelRolloutRunner": "maze.rollout.ParallelRolloutRunner",
    "maze.core.rollout.sequential_rollout_runner.SequentialRolloutRunner": "maze.rollout.SequentialRolloutRunner",
    "maze.core.trajectory_recording.datasets.in_memory_dataset.InMemoryDataset": f"{_DATASETS}.InMemoryDataset",
    "maze.core.trajectory_recording.datasets.trajectory_processor.IdentityTrajectoryProcessor": (
        f"{_DATASETS}.IdentityTrajectoryProcessor"
    ),
    "maze.core.trajectory_recording.datasets.trajectory_processor.IdentityWithNextObservationTrajectoryProcessor": (
        f"{_DATASETS}.IdentityWithNextObservationTrajectoryProcessor"
    ),
    "maze.core.trajectory_recording.datasets.trajectory_processor.DeadEndClippingTrajectoryProcessor": (
        f"{_DATASETS}.DeadEndClippingTrajectoryProcessor"
    ),
    # training
    "maze.train.trainers.common.evaluators.rollout_evaluator.RolloutEvaluator": "maze.train.evaluators.RolloutEvaluator",
}
"""Documented path -> the path of our class (strings only: nothing is imported here)."""

_warned: set[str] = set()


def translate_documented_path(path: str) -> Optional[str]:
    """Our path for a documented one (warning once per path), or None if ``path`` is no alias."""
    new_path = DOCUMENTED_ALIASES.get(path)
    if new_path is not None and path not in _warned:
        _warned.add(path)
        warnings.warn(
            f"_target_ {path!r} is the original framework's module path; it resolves to {new_path!r}. "
            "Update the config to the new path",
            FutureWarning,
            stacklevel=3,
        )
    return new_path
