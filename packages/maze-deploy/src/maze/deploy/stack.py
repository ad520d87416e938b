"""The wrapper stack of a deployment: its layers, its action path and its normalization statistics."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from maze.deploy.action_candidates import ActionCandidates, MazeActionCandidates
from maze.deploy.errors import WrapperStackError
from maze.deploy.external_core_env import ExternalCoreEnv
from maze.env.core.maze_env import MazeEnv
from maze.env.errors import ConfigurationError
from maze.env.log_stats.log_stats_env import LogStatsEnv
from maze.env.utils.factory import CollectionOfConfigType, ConfigType, Factory
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.normalization import ObservationNormalizationWrapper
from maze.env.wrappers.wrapper import ActionWrapper
from maze.env.wrappers.wrapper_factory import WrapperFactory

__all__ = [
    "ActionPath",
    "DeploymentStack",
    "NormalizationStatistics",
    "build_deployment_stack",
    "check_normalization_statistics",
    "describe_stack",
    "set_normalization_statistics",
    "stack_layers",
]

NormalizationStatistics = Union[Mapping[str, Mapping[str, Any]], str, os.PathLike]
"""``{observation key: {statistic: value}}``, an ``.npz`` file, or a directory holding the wrapper's dump file."""

_ENV_FACTORY = Factory(MazeEnv, search_modules=["maze.env"], config_key="env")


@dataclass
class DeploymentStack:
    """A wrapper stack whose MazeEnv takes its MazeStates from an ExternalCoreEnv.

    Attributes:
        env: The outermost layer.
        layers: All layers, outermost first; the last one is the MazeEnv.
        external_env: The ExternalCoreEnv inside the MazeEnv.
        stats: The outermost LogStatsEnv layer (the statistics of the deployment).
        text: The stack as text, for error messages.
    """

    env: Any
    layers: list[Any]
    external_env: ExternalCoreEnv
    stats: LogStatsEnv
    text: str


def build_deployment_stack(
    env: ConfigType,
    wrappers: Optional[CollectionOfConfigType],
    normalization_statistics: Optional[NormalizationStatistics],
    logging_prefix: Optional[str],
) -> DeploymentStack:
    """Builds the env and its wrappers and replaces the MazeEnv's core env by an ExternalCoreEnv.

    Sets the normalization statistics and wraps the stack in a LogStatsWrapper (with
    ``logging_prefix``) unless it already has a LogStatsEnv layer.

    Raises:
        ConfigurationError: For bad configs, an env that already serves a deployment, or
            normalization statistics that are missing or do not fit.
    """
    stack = WrapperFactory.wrap_from_config(_ENV_FACTORY.instantiate(env), wrappers)
    layers = stack_layers(stack)
    maze_env = layers[-1]
    if isinstance(maze_env.core_env, ExternalCoreEnv):
        raise ConfigurationError(
            "this env already serves another AgentDeployment (its core env is an ExternalCoreEnv); give each "
            "deployment its own env instance, or pass an env config"
        )
    env_text = repr(maze_env)  # before the swap: an env's repr may read its core env
    external_env = ExternalCoreEnv(maze_env.core_env)
    maze_env.core_env = external_env
    if normalization_statistics is not None:
        set_normalization_statistics(layers, normalization_statistics)
    check_normalization_statistics(layers)
    stats = next((layer for layer in layers if issubclass(type(layer), LogStatsEnv)), None)
    if stats is None:
        stack = stats = LogStatsWrapper.wrap(stack, logging_prefix=logging_prefix)
        layers.insert(0, stack)
    return DeploymentStack(stack, layers, external_env, stats, describe_stack(layers, env_text))


def stack_layers(env: Any) -> list[Any]:
    """The layers of a wrapper stack around a MazeEnv, outermost first; the last one is the MazeEnv."""
    layers = [env]
    while getattr(type(layers[-1]), "_is_maze_wrapper", False):
        layers.append(vars(layers[-1])["env"])
    return layers


def describe_stack(layers: list[Any], env_text: str) -> str:
    """The stack as text, outermost first: ``LogStatsWrapper > ... > GymMazeEnv(CartPole-v1)``.

    Args:
        layers: The stack's layers.
        env_text: How to show the MazeEnv at the bottom (e.g. its repr).
    """
    return " > ".join([*(type(layer).__name__ for layer in layers[:-1]), env_text])


class ActionPath:
    """Computes the MazeAction a stack's ``step(action)`` will execute, without stepping it.

    Applies the ``action()`` transformation of every :class:`ActionWrapper` of the stack,
    outermost first, then the MazeEnv's action conversion of the acting sub-step with the
    current MazeState. Wrappers that are no ActionWrapper pass actions through unchanged.

    Args:
        layers: The stack's layers (:func:`stack_layers`).
        stack_text: The stack as text, for error messages.
    """

    def __init__(self, layers: list[Any], stack_text: str) -> None:
        self._transforms = tuple(layer.action for layer in layers[:-1] if issubclass(type(layer), ActionWrapper))
        self._maze_env: MazeEnv = layers[-1]
        self._outer = layers[0]
        self._stack_text = stack_text

    def env_action(self, action: Any) -> Any:
        """The MazeEnv's action for ``action``, an action of the stack's action space (ActionWrappers applied)."""
        for transform in self._transforms:
            action = transform(action)
        return action

    def maze_action(self, action: Any) -> Any:
        """The MazeAction for ``action``, an action of the stack's action space."""
        maze_env = self._maze_env
        return maze_env.action_conversion.space_to_maze(self.env_action(action), maze_env.get_maze_state())

    def convert(self, decision: Union[Any, ActionCandidates]) -> Union[Any, MazeActionCandidates]:
        """The MazeAction of a policy's action, or the MazeActions of its candidates.

        Raises:
            WrapperStackError: The stack cannot convert the action (e.g. it lies outside the action space).
        """
        try:
            if isinstance(decision, ActionCandidates):
                maze_actions = tuple(self.maze_action(action) for action in decision.actions)
                return MazeActionCandidates(maze_actions, decision.probabilities, decision)
            return self.maze_action(decision)
        except Exception as error:
            raise WrapperStackError(
                f"the wrapper stack {self._stack_text} could not turn the policy's action {decision!r} into a "
                f"MazeAction ({type(error).__name__}: {error}); the policy's actions must lie in the stack's action "
                f"space {self._outer.action_space}"
            ) from error


def set_normalization_statistics(layers: list[Any], statistics: NormalizationStatistics) -> None:
    """Gives the outermost ObservationNormalizationWrapper of the stack its statistics.

    Args:
        layers: The stack's layers.
        statistics: A mapping, an ``.npz`` file, or a directory that holds the wrapper's
            ``statistics_dump`` file (e.g. a training run directory).

    Raises:
        ConfigurationError: The stack has no normalization wrapper, or the statistics do not fit.
        FileNotFoundError: The statistics file does not exist.
    """
    wrapper = next((layer for layer in layers if issubclass(type(layer), ObservationNormalizationWrapper)), None)
    if wrapper is None:
        raise ConfigurationError(
            "normalization_statistics were given, but the deployment's wrapper stack has no "
            "ObservationNormalizationWrapper; add it to the wrappers (as in training) or drop the statistics"
        )
    if isinstance(statistics, Mapping):
        wrapper.set_normalization_statistics(statistics)
        return
    path = Path(statistics)
    if path.is_dir():
        path = path / wrapper.statistics_dump
    if not path.is_file():
        raise FileNotFoundError(
            f"normalization statistics file {str(path)!r} does not exist; training runs write it into their run "
            "directory when the wrappers normalize observations"
        )
    wrapper.load_statistics(path)


def check_normalization_statistics(layers: list[Any]) -> None:
    """Raises a ConfigurationError when a normalization wrapper of the stack lacks statistics."""
    for layer in layers:
        if issubclass(type(layer), ObservationNormalizationWrapper) and layer.missing_statistics_keys():
            raise ConfigurationError(
                f"the ObservationNormalizationWrapper of the deployment's stack has no statistics for the "
                f"observations {layer.missing_statistics_keys()}, and a deployment cannot estimate them (it has no "
                "simulation to sample). Pass normalization_statistics= (the training run's statistics.npz, its run "
                "directory or a mapping), or build the deployment with AgentDeployment.from_run_dir"
            )
