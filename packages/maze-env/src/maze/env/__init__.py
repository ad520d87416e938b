"""maze.env: the torch-free environment layer of maze.

Model a decision process as a :class:`CoreEnv` (the simulation, on MazeStates and
MazeActions), expose it to agents as a :class:`MazeEnv` (a gymnasium env with dict spaces
via observation/action conversions), adapt existing gymnasium envs with
:class:`GymMazeEnv`, stack wrappers, and step many envs at once with vector envs.
"""

from importlib.metadata import version as _version

from maze.env.agent.default_policy import DefaultPolicy
from maze.env.agent.dummy_cartpole_policy import DummyCartPolePolicy
from maze.env.agent.lunar_lander_heuristic import LunarLanderHeuristicPolicy
from maze.env.agent.policy import FlatPolicy, Policy
from maze.env.agent.random_policy import RandomPolicy
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.core.context import EnvironmentContext
from maze.env.core.conversion import ActionConversionInterface, ObservationConversionInterface
from maze.env.core.core_env import CoreEnv
from maze.env.core.events import EventRecord, EventService, Pubsub, Subscriber
from maze.env.core.maze_env import MazeEnv
from maze.env.core.mixins import (
    EventEnvMixin,
    RecordableEnvMixin,
    RenderEnvMixin,
    SerializableEnvMixin,
    SimulatedEnvMixin,
    TimeEnvMixin,
)
from maze.env.core.renderer_args import IntRangeArg, OptionsArrayArg, RendererArg
from maze.env.core.rendering import Renderer
from maze.env.core.reward import RewardAggregatorInterface
from maze.env.core.spaces_mixin import StructuredEnvSpacesMixin
from maze.env.core.structured_env import StructuredEnv
from maze.env.errors import ConfigurationError, EnvWorkerError, InvalidActionError, MazeError
from maze.env.gym_adapter.conversion import GymActionConversion, GymObservationConversion
from maze.env.gym_adapter.core_env import GymCoreEnv, GymRenderer
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv, make_gym_maze_env
from maze.env.log_events import (
    EpisodeEventLog,
    KpiCalculator,
    LogEventsWriter,
    LogEventsWriterRegistry,
    LogEventsWriterTSV,
    SimpleEventLoggingSetup,
    StepEventLog,
    read_event_log_tsv,
)
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.base_events import (
    ActorEvents,
    BaseEnvEvents,
    ContinuousActionEvents,
    DiscreteActionEvents,
    MultiBinaryActionEvents,
    ObservationEvents,
    RewardEvents,
)
from maze.env.log_stats.event_decorators import (
    LogStatsLevel,
    define_episode_stats,
    define_epoch_stats,
    define_plot,
    define_stats_grouping,
    define_step_stats,
    histogram,
)
from maze.env.log_stats.global_state import (
    clear_global_state,
    get_stats_logger,
    increment_log_step,
    log_stats,
    register_log_stats_writer,
    unregister_log_stats_writer,
)
from maze.env.log_stats.log_stats import LogStats, LogStatsKey, LogStatsValue
from maze.env.log_stats.log_stats_env import LogStatsEnv
from maze.env.log_stats.logging_setup import SimpleStatsLoggingSetup
from maze.env.log_stats.vector_stats import collect_episode_stats
from maze.env.log_stats.writers import LogStatsWriter, LogStatsWriterConsole, LogStatsWriterFile
from maze.env.trajectory_recording import (
    SimpleTrajectoryRecordingSetup,
    SpacesRecord,
    SpacesTrajectoryRecord,
    StateRecord,
    StateTrajectoryRecord,
    StructuredSpacesRecord,
    TrajectoryLoadError,
    TrajectoryRecord,
    TrajectoryWriter,
    TrajectoryWriterFile,
    TrajectoryWriterRegistry,
    load_trajectory,
)
from maze.env.utils.factory import CollectionOfConfigType, ConfigType, Factory
from maze.env.utils.process import Process
from maze.env.utils.running_stats import CumulativeMovingMeanStd
from maze.env.utils.seeding import MazeSeeding, set_seeds_globally
from maze.env.utils.timeout import Timeout
from maze.env.utils.writer_registry import WriterRegistry
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.env.wrappers import (
    ActionWrapper,
    DictActionWrapper,
    DictObservationWrapper,
    DiscretizeActionsWrapper,
    LogStatsWrapper,
    MazeEnvMonitoringWrapper,
    NoDictActionWrapper,
    NoDictObservationWrapper,
    NoDictSpacesWrapper,
    ObservationNormalizationWrapper,
    ObservationStackWrapper,
    ObservationVisualizationWrapper,
    ObservationWrapper,
    PreProcessingWrapper,
    RandomResetWrapper,
    ReturnNormalizationRewardWrapper,
    RewardClippingWrapper,
    RewardScalingWrapper,
    RewardWrapper,
    SortedSpacesWrapper,
    SplitActionsWrapper,
    TimeLimitWrapper,
    TrajectoryRecordingWrapper,
    Wrapper,
    WrapperFactory,
)
from maze.env.wrappers.normalization import (
    MeanZeroStdOneObservationNormalizationStrategy,
    ObservationNormalizationStrategy,
    RangeZeroOneObservationNormalizationStrategy,
    estimate_observation_normalization_statistics,
    make_normalized_env_factory,
    obtain_normalization_statistics,
)
from maze.env.wrappers.preprocessing import (
    FlattenPreProcessor,
    OneHotPreProcessor,
    PreProcessor,
    ResizeImgPreProcessor,
    Rgb2GrayPreProcessor,
    TransposePreProcessor,
    UnSqueezePreProcessor,
)

__version__ = _version("maze-env")

__all__ = [
    "__version__",
    # env hierarchy
    "ActorID",
    "StepKeyType",
    "StructuredEnv",
    "StructuredEnvSpacesMixin",
    "CoreEnv",
    "MazeEnv",
    "EnvironmentContext",
    "ObservationConversionInterface",
    "ActionConversionInterface",
    "RewardAggregatorInterface",
    "Renderer",
    "RenderEnvMixin",
    "RecordableEnvMixin",
    "SerializableEnvMixin",
    "TimeEnvMixin",
    "EventEnvMixin",
    "SimulatedEnvMixin",
    # events
    "EventRecord",
    "EventService",
    "Pubsub",
    "Subscriber",
    # gymnasium adapter
    "GymMazeEnv",
    "make_gym_maze_env",
    "GymCoreEnv",
    "GymRenderer",
    "GymObservationConversion",
    "GymActionConversion",
    # wrappers
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
    "PreProcessor",
    "FlattenPreProcessor",
    "OneHotPreProcessor",
    "ResizeImgPreProcessor",
    "Rgb2GrayPreProcessor",
    "TransposePreProcessor",
    "UnSqueezePreProcessor",
    "ObservationNormalizationWrapper",
    "ObservationNormalizationStrategy",
    "MeanZeroStdOneObservationNormalizationStrategy",
    "RangeZeroOneObservationNormalizationStrategy",
    "obtain_normalization_statistics",
    "estimate_observation_normalization_statistics",
    "make_normalized_env_factory",
    "LogStatsWrapper",
    "MazeEnvMonitoringWrapper",
    "ObservationVisualizationWrapper",
    "TrajectoryRecordingWrapper",
    # events, statistics, event logs
    "StepEventLog",
    "EpisodeEventLog",
    "KpiCalculator",
    "LogEventsWriter",
    "LogEventsWriterTSV",
    "LogEventsWriterRegistry",
    "SimpleEventLoggingSetup",
    "read_event_log_tsv",
    "LogStatsLevel",
    "LogStatsKey",
    "LogStatsValue",
    "LogStats",
    "LogStatsAggregator",
    "LogStatsEnv",
    "define_step_stats",
    "define_episode_stats",
    "define_epoch_stats",
    "define_stats_grouping",
    "define_plot",
    "histogram",
    "BaseEnvEvents",
    "ActorEvents",
    "RewardEvents",
    "ObservationEvents",
    "DiscreteActionEvents",
    "ContinuousActionEvents",
    "MultiBinaryActionEvents",
    "LogStatsWriter",
    "LogStatsWriterConsole",
    "LogStatsWriterFile",
    "register_log_stats_writer",
    "unregister_log_stats_writer",
    "log_stats",
    "get_stats_logger",
    "increment_log_step",
    "clear_global_state",
    "SimpleStatsLoggingSetup",
    "collect_episode_stats",
    # rendering and trajectory recording
    "RendererArg",
    "IntRangeArg",
    "OptionsArrayArg",
    "StateRecord",
    "TrajectoryRecord",
    "StateTrajectoryRecord",
    "SpacesRecord",
    "StructuredSpacesRecord",
    "SpacesTrajectoryRecord",
    "TrajectoryWriter",
    "TrajectoryWriterRegistry",
    "TrajectoryWriterFile",
    "TrajectoryLoadError",
    "load_trajectory",
    "SimpleTrajectoryRecordingSetup",
    # vector envs
    "StructuredVectorEnv",
    "SequentialVectorEnv",
    "SubprocVectorEnv",
    # config, seeding, utilities
    "Factory",
    "ConfigType",
    "CollectionOfConfigType",
    "MazeSeeding",
    "set_seeds_globally",
    "CumulativeMovingMeanStd",
    "Timeout",
    "Process",
    "WriterRegistry",
    # agents
    "Policy",
    "FlatPolicy",
    "DefaultPolicy",
    "RandomPolicy",
    "DummyCartPolePolicy",
    "LunarLanderHeuristicPolicy",
    # errors
    "MazeError",
    "ConfigurationError",
    "InvalidActionError",
    "EnvWorkerError",
]
