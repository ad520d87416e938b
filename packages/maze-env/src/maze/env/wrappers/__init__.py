"""The wrapper framework and every built-in wrapper.

The names exported here are the short names a wrappers config may use instead of a
dotted path (``RandomResetWrapper: {min_skip_steps: 0, max_skip_steps: 100}``).
"""

from maze.env.wrappers.dict_spaces import (
    DictActionWrapper,
    DictObservationWrapper,
    NoDictActionWrapper,
    NoDictObservationWrapper,
    NoDictSpacesWrapper,
)
from maze.env.wrappers.discretize_actions import DiscretizeActionsWrapper
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.monitoring_wrapper import MazeEnvMonitoringWrapper
from maze.env.wrappers.normalization import ObservationNormalizationWrapper
from maze.env.wrappers.observation_stack import ObservationStackWrapper
from maze.env.wrappers.observation_visualization import ObservationVisualizationWrapper
from maze.env.wrappers.preprocessing import PreProcessingWrapper
from maze.env.wrappers.random_reset import RandomResetWrapper
from maze.env.wrappers.reward_wrappers import (
    ReturnNormalizationRewardWrapper,
    RewardClippingWrapper,
    RewardScalingWrapper,
)
from maze.env.wrappers.sorted_spaces import SortedSpacesWrapper
from maze.env.wrappers.split_actions import SplitActionsWrapper
from maze.env.wrappers.time_limit import TimeLimitWrapper
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper
from maze.env.wrappers.wrapper import ActionWrapper, ObservationWrapper, RewardWrapper, Wrapper
from maze.env.wrappers.wrapper_factory import WrapperFactory

__all__ = [
    "Wrapper",
    "ObservationWrapper",
    "ActionWrapper",
    "RewardWrapper",
    "WrapperFactory",
    "TimeLimitWrapper",
    "RandomResetWrapper",
    "SortedSpacesWrapper",
    "NoDictSpacesWrapper",
    "NoDictObservationWrapper",
    "NoDictActionWrapper",
    "DictObservationWrapper",
    "DictActionWrapper",
    "ObservationStackWrapper",
    "SplitActionsWrapper",
    "DiscretizeActionsWrapper",
    "RewardScalingWrapper",
    "RewardClippingWrapper",
    "ReturnNormalizationRewardWrapper",
    "PreProcessingWrapper",
    "ObservationNormalizationWrapper",
    "TrajectoryRecordingWrapper",
    "LogStatsWrapper",
    "MazeEnvMonitoringWrapper",
    "ObservationVisualizationWrapper",
]
