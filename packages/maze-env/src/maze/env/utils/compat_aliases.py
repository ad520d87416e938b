"""Aliases for the ``_target_`` paths of the original framework's documentation.

Configs written against the documented module layout (``maze.core.wrappers...``,
``maze.preprocessors...``, ``maze.utils...``) keep working: :func:`~maze.env.utils.factory.resolve_target`
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
    # normalization strategies (named as a string in the wrapper's `default_strategy`)
    **{
        f"maze.normalization_strategies.{name}": f"{_WRAPPERS}.normalization.strategies.{name}"
        for name in ("MeanZeroStdOneObservationNormalizationStrategy", "RangeZeroOneObservationNormalizationStrategy")
    },
    # utilities (maze.utils) and the Python listings of the examples
    "maze.utils.log_stats_utils.setup_logging": "maze.train.logging_setup.setup_logging",
    "maze.utils.log_stats_utils.SimpleStatsLoggingSetup": "maze.env.log_stats.logging_setup.SimpleStatsLoggingSetup",
    "maze.utils.log_stats_utils.clear_global_state": "maze.env.log_stats.global_state.clear_global_state",
    "maze.utils.timeout.Timeout": "maze.env.utils.timeout.Timeout",
    "maze.utils.process.Process": "maze.env.utils.process.Process",
    "maze.core.rollout.rollout_generator.RolloutGenerator": "maze.train.rollout.generator.RolloutGenerator",
    "maze.core.utils.config_utils.read_hydra_config": "maze.rl.hydra_config.read_hydra_config",
    "maze.core.utils.config_utils.make_env_from_hydra": "maze.rl.hydra_config.make_env_from_hydra",
    "maze.core.wrappers.log_stats_wrapper.LogStatsWrapper": f"{_WRAPPERS}.log_stats_wrapper.LogStatsWrapper",
    "maze.core.wrappers.no_dict_spaces_wrapper.NoDictSpacesWrapper": f"{_WRAPPERS}.dict_spaces.NoDictSpacesWrapper",
    "maze.core.wrappers.reward_scaling_wrapper.RewardScalingWrapper": f"{_WRAPPERS}.reward_wrappers.RewardScalingWrapper",
    "maze.core.wrappers.observation_normalization.observation_normalization_utils.obtain_normalization_statistics": (
        f"{_WRAPPERS}.normalization.normalization_utils.obtain_normalization_statistics"
    ),
    "maze.core.agent.dummy_cartpole_policy.DummyCartPolePolicy": "maze.env.agent.dummy_cartpole_policy.DummyCartPolePolicy",
    "maze.core.agent.torch_policy.TorchPolicy": "maze.perception.agent.torch_policy.TorchPolicy",
    "maze.core.agent.torch_state_critic.TorchSharedStateCritic": (
        "maze.perception.agent.torch_state_critic.TorchSharedStateCritic"
    ),
    "maze.core.agent.torch_actor_critic.TorchActorCritic": "maze.perception.agent.torch_actor_critic.TorchActorCritic",
    "maze.train.parallelization.vector_env.sequential_vector_env.SequentialVectorEnv": (
        "maze.env.vector.sequential.SequentialVectorEnv"
    ),
    "maze.train.parallelization.vector_env.subproc_vector_env.SubprocVectorEnv": "maze.env.vector.subproc.SubprocVectorEnv",
    "maze.train.trainers.a2c.a2c_trainer.A2C": "maze.train.trainers.a2c.A2C",
    "maze.train.trainers.a2c.a2c_algorithm_config.A2CAlgorithmConfig": "maze.train.trainers.a2c.A2CAlgorithmConfig",
    "maze.train.trainers.common.model_selection.best_model_selection.BestModelSelection": (
        "maze.train.core.model_selection.BestModelSelection"
    ),
    # maze's own runner paths before the runners moved beside their trainers (configs of earlier runs)
    **{
        f"maze.train.runners.{name}": f"maze.train.runners.actor_critic_runner.{name}"
        for name in ("ACDevRunner", "ACLocalRunner")
    },
    **{
        f"maze.train.runners.{name}": f"maze.train.trainers.impala.runner.{name}"
        for name in ("ImpalaDevRunner", "ImpalaLocalRunner")
    },
}
"""Documented path -> the path of our class (strings only: nothing is imported here)."""

_warned: set[str] = set()


def translate_documented_path(path: str) -> Optional[str]:
    """Our path for a documented one (warning once per path), or None if ``path`` is no alias."""
    new_path = DOCUMENTED_ALIASES.get(path)
    if new_path is not None and path not in _warned:
        _warned.add(path)
        warnings.warn(
            f"_target_ {path!r} is an old module path (of the original framework or an earlier maze release); "
            f"it resolves to {new_path!r}. "
            "Update the config to the new path",
            FutureWarning,
            stacklevel=3,
        )
    return new_path
