"""Env factories built from the ``env`` and ``wrappers`` config groups (picklable for worker processes)."""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Optional

from maze.env.agent.random_policy import RandomPolicy
from maze.env.core.structured_env import StructuredEnv
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import Factory, to_plain_config
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.wrapper_factory import WrapperFactory

__all__ = ["EnvFactory", "auto_concurrency", "build_vector_env", "measure_step_seconds"]

SUBPROCESS_MIN_STEP_SECONDS = 2e-4
"""Envs stepping faster than this run in the main process: a worker round trip costs more."""

AUTO_IN_PROCESS_ENVS = 8
"""Envs stepped together in the main process when ``concurrency`` is 0 and the env is cheap."""

MAX_IN_PROCESS_EVAL_ENVS = 32
"""With ``eval_concurrency: 0``, in-process evaluation runs up to this many episodes side by side."""


class EnvFactory:
    """Builds the env of the ``env`` config, wraps it with the ``wrappers`` config and a LogStatsWrapper.

    Args:
        env_config: The ``env`` group (``_target_`` plus arguments).
        wrappers_config: The ``wrappers`` group (wrapper class path -> arguments), or None.
    """

    def __init__(self, env_config: Any, wrappers_config: Any = None) -> None:
        self.env_config = to_plain_config(env_config)
        self.wrappers_config = to_plain_config(wrappers_config) or {}

    def __call__(self) -> Any:
        """A new wrapped env."""
        env = Factory(StructuredEnv).instantiate(self.env_config)
        env = WrapperFactory.wrap_from_config(env, self.wrappers_config)
        return LogStatsWrapper.wrap(env)


def measure_step_seconds(env: Any, steps: int = 200, seed: Optional[int] = None) -> float:
    """The mean seconds of one ``step`` of ``env`` under random actions (reset time excluded)."""
    policy = RandomPolicy(env.action_spaces_dict)
    if seed is not None:
        policy.seed(seed)
    observation, _ = env.reset(seed=seed)
    elapsed = 0.0
    for _ in range(steps):
        action = policy.compute_action(observation, actor_id=env.actor_id())
        start = time.perf_counter()
        observation, _, terminated, truncated, _ = env.step(action)
        elapsed += time.perf_counter() - start
        if terminated or truncated:
            observation, _ = env.reset()
    return elapsed / steps


def auto_concurrency(step_seconds: float) -> tuple[int, bool]:
    """``(envs, in worker processes?)`` for ``concurrency: 0``.

    Cheap envs (a step faster than a worker round trip) run :data:`AUTO_IN_PROCESS_ENVS`
    envs in the main process; expensive ones one worker process per CPU core.
    """
    if step_seconds < SUBPROCESS_MIN_STEP_SECONDS:
        return AUTO_IN_PROCESS_ENVS, False
    return max(2, os.cpu_count() or 2), True


def build_vector_env(
    factory: Callable[[], Any], n_envs: int, subprocesses: bool, copy_observations: bool = False
) -> StructuredVectorEnv:
    """``n_envs`` envs of ``factory``, in worker processes or in this process."""
    if n_envs < 1:
        raise ConfigurationError(f"concurrency must be at least 1 (or 0 for automatic), got {n_envs}")
    factories = [factory] * n_envs
    if subprocesses:
        return SubprocVectorEnv(factories, copy_observations=copy_observations)
    return SequentialVectorEnv(factories, copy_observations=copy_observations)
