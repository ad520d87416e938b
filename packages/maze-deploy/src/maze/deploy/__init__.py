"""maze.deploy: embed a trained agent and its wrapper stack in a production loop.

A service that owns the real environment asks :class:`AgentDeployment` for an action
whenever it is ready (``act(maze_state, reward, done, info)``); the deployment runs the
full wrapper stack (normalization, frame stacking, statistics) around an
:class:`ExternalCoreEnv` that takes the service's MazeStates, in the calling thread.
:class:`StackPolicy` gives single actions for observations of the bare env (no episode).
Torch policies of training runs need the ``torch`` extra (maze-perception); their ONNX
exports run without torch through :class:`OnnxPolicy` (the ``onnx`` extra: onnxruntime).
Importing this package never imports torch or onnxruntime.
"""

from importlib.metadata import version as _version

from maze.deploy.action_candidates import ActionCandidates, MazeActionCandidates
from maze.deploy.agent_deployment import AgentDeployment
from maze.deploy.errors import (
    ConcurrentUseError,
    DeploymentError,
    DeploymentOrderError,
    InvalidRewardError,
    ObservationOutsideSpaceError,
    PolicyExecutionError,
    WrapperStackError,
)
from maze.deploy.external_core_env import ExternalCoreEnv
from maze.deploy.onnx_policy import OnnxPolicy
from maze.deploy.policy_executor import PolicyExecutor
from maze.deploy.recommendation import CandidateForecast, Recommendation, Statistic, rollout_seed
from maze.deploy.stack_policy import StackPolicy

__version__ = _version("maze-deploy")

__all__ = [
    "__version__",
    "AgentDeployment",
    "ExternalCoreEnv",
    "OnnxPolicy",
    "PolicyExecutor",
    "StackPolicy",
    "Recommendation",
    "CandidateForecast",
    "Statistic",
    "rollout_seed",
    "ActionCandidates",
    "MazeActionCandidates",
    "DeploymentError",
    "DeploymentOrderError",
    "ConcurrentUseError",
    "InvalidRewardError",
    "ObservationOutsideSpaceError",
    "PolicyExecutionError",
    "WrapperStackError",
]
