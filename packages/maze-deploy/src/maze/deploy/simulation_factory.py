"""Where the simulation env of ``AgentDeployment.recommend`` comes from.

A deployment's own env cannot simulate: its core env is an ExternalCoreEnv that only repeats
the MazeStates the service hands in. Recommendations need a second stack, built like the
deployment's (the same env, the same wrappers, the same normalization statistics, so the
policy sees the observations it was trained on) around a real simulation: a
:class:`~maze.env.core.mixins.SimulatedEnvMixin`. By default:

* ``env`` given as a config (``_target_`` mapping, e.g. from a run directory): the config is
  instantiated again (:class:`StackFactory`), in this process or in each worker process;
* ``env`` given as an instance: the deployment's stack is deep-copied at the first
  recommendation and the copy's ExternalCoreEnv replaced by (a copy of) the core env it
  took over (:func:`copied_stack_factory`).

Pass ``simulation_env_factory`` to :class:`~maze.deploy.agent_deployment.AgentDeployment` for
anything else (e.g. a simulator that differs from the env the agent was trained in).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Callable, Optional

from maze.deploy.external_core_env import ExternalCoreEnv
from maze.deploy.stack import (
    NormalizationStatistics,
    check_normalization_statistics,
    set_normalization_statistics,
    stack_layers,
)
from maze.env.core.maze_env import MazeEnv
from maze.env.utils.factory import CollectionOfConfigType, ConfigType, Factory, to_plain_config
from maze.env.wrappers.wrapper_factory import WrapperFactory

__all__ = ["StackFactory", "copied_stack_factory", "simulation_factory_of"]

_ENV_FACTORY = Factory(MazeEnv, search_modules=["maze.env"], config_key="env")


class StackFactory:
    """Builds an env and its wrappers from configs and sets the normalization statistics (picklable).

    Args:
        env: The env config.
        wrappers: The wrappers config.
        normalization_statistics: Statistics of the stack's ObservationNormalizationWrapper.
    """

    def __init__(
        self,
        env: ConfigType,
        wrappers: Optional[CollectionOfConfigType],
        normalization_statistics: Optional[NormalizationStatistics],
    ) -> None:
        self.env = to_plain_config(env)
        self.wrappers = to_plain_config(wrappers)
        self.normalization_statistics = normalization_statistics

    def __call__(self) -> Any:
        """A new stack."""
        stack = WrapperFactory.wrap_from_config(_ENV_FACTORY.instantiate(self.env), self.wrappers)
        layers = stack_layers(stack)
        if self.normalization_statistics is not None:
            set_normalization_statistics(layers, self.normalization_statistics)
        check_normalization_statistics(layers)
        return stack


class _CopyFactory:
    """Returns deep copies of a template stack (picklable when the template is)."""

    def __init__(self, template: Any) -> None:
        self.template = template

    def __call__(self) -> Any:
        return copy.deepcopy(self.template)


def simulation_factory_of(
    env: ConfigType,
    wrappers: Optional[CollectionOfConfigType],
    normalization_statistics: Optional[NormalizationStatistics],
) -> Optional[Callable[[], Any]]:
    """The default simulation factory of a deployment built from ``env``: a StackFactory for configs, else None.

    None means: copy the deployment's stack at the first recommendation (:func:`copied_stack_factory`).
    """
    plain = to_plain_config(env)
    if isinstance(plain, Mapping) and "_target_" in plain:
        return StackFactory(plain, wrappers, normalization_statistics)
    return None


def copied_stack_factory(deployment_env: Any) -> Callable[[], Any]:
    """A factory of copies of a deployment's stack, each around a copy of the core env the deployment took over.

    Args:
        deployment_env: The deployment's outermost layer (its core env an ExternalCoreEnv).
    """
    template = copy.deepcopy(deployment_env)
    maze_env = stack_layers(template)[-1]
    if isinstance(maze_env.core_env, ExternalCoreEnv):
        maze_env.core_env = maze_env.core_env.replaced
    return _CopyFactory(template)
