"""maze.env: the torch-free environment layer of maze.

Model a decision process as a :class:`CoreEnv` (the simulation, on MazeStates and
MazeActions), expose it to agents as a :class:`MazeEnv` (a gymnasium env with dict spaces
via observation/action conversions), adapt existing gymnasium envs with
:class:`GymMazeEnv`, stack wrappers, and step many envs at once with vector envs.
"""

from importlib.metadata import version as _version

from maze.env.agent.default_policy import DefaultPolicy
from maze.env.agent.dummy_cartpole_policy import DummyCartPolePolicy
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
from maze.env.core.rendering import Renderer
from maze.env.core.reward import RewardAggregatorInterface
from maze.env.core.spaces_mixin import StructuredEnvSpacesMixin
from maze.env.core.structured_env import StructuredEnv
from maze.env.errors import ConfigurationError, EnvWorkerError, InvalidActionError, MazeError
from maze.env.gym_adapter.conversion import GymActionConversion, GymObservationConversion
from maze.env.gym_adapter.core_env import GymCoreEnv, GymRenderer
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv, make_gym_maze_env
from maze.env.utils.factory import CollectionOfConfigType, ConfigType, Factory
from maze.env.utils.running_stats import CumulativeMovingMeanStd
from maze.env.utils.seeding import MazeSeeding, set_seeds_globally
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.env.wrappers import (
    ActionWrapper,
    DictActionWrapper,
    DictObservationWrapper,
    DiscretizeActionsWrapper,
    NoDictActionWrapper,
    NoDictObservationWrapper,
    NoDictSpacesWrapper,
    ObservationNormalizationWrapper,
    ObservationStackWrapper,
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
    # agents
    "Policy",
    "FlatPolicy",
    "DefaultPolicy",
    "RandomPolicy",
    "DummyCartPolePolicy",
    # errors
    "MazeError",
    "ConfigurationError",
    "InvalidActionError",
    "EnvWorkerError",
]
