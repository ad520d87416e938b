"""Env factories of the ``env`` and ``wrappers`` config groups (picklable for worker processes) and env placement."""

from __future__ import annotations

import time
from typing import Any, Callable

from maze.env.agent.random_policy import RandomPolicy
from maze.env.core.structured_env import StructuredEnv
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import Factory, to_plain_config
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv
from maze.env.vector.vector_env import StructuredVectorEnv
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.wrapper_factory import WrapperFactory

__all__ = [
    "AUTO_ENVS",
    "MAX_AUTO_EVAL_ENVS",
    "EnvFactory",
    "build_vector_env",
    "measure_step_seconds",
    "prefers_worker_processes",
]

SUBPROCESS_MIN_STEP_SECONDS = 2e-4
"""Envs stepping faster than this run in the main process: a worker round trip costs more."""

AUTO_ENVS = 8
"""Training envs of ``concurrency: 0``, wherever they run (the count never depends on the machine)."""

MAX_AUTO_EVAL_ENVS = 32
"""With ``eval_concurrency: 0``, evaluation runs one env per episode, at most this many side by side."""

PLACEMENT_PROBE_SEED = 0
"""Seed of the env timed by :func:`measure_step_seconds` (fixed: the probe never draws from the run's seeds)."""


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
        env = Factory(StructuredEnv, config_key="env").instantiate(self.env_config)
        env = WrapperFactory.wrap_from_config(env, self.wrappers_config)
        return LogStatsWrapper.wrap(env)


def measure_step_seconds(env: Any, steps: int = 200) -> float:
    """The mean seconds of one ``step`` of ``env`` under random actions (reset time excluded).

    The env and the actions are seeded with :data:`PLACEMENT_PROBE_SEED`, so timing an env
    leaves the run's seed sequence untouched.
    """
    policy = RandomPolicy(env.action_spaces_dict)
    policy.seed(PLACEMENT_PROBE_SEED)
    observation, _ = env.reset(seed=PLACEMENT_PROBE_SEED)
    elapsed = 0.0
    for _ in range(steps):
        action = policy.compute_action(observation, actor_id=env.actor_id())
        start = time.perf_counter()
        observation, _, terminated, truncated, _ = env.step(action)
        elapsed += time.perf_counter() - start
        if terminated or truncated:
            observation, _ = env.reset()
    return elapsed / steps


def prefers_worker_processes(step_seconds: float) -> bool:
    """Whether envs stepping in ``step_seconds`` run faster in worker processes than in this process.

    Automatic placement decides only *where* envs run: the number of envs, and so the env
    steps per epoch and the env seeds, follows the config alone (:data:`AUTO_ENVS`,
    :data:`MAX_AUTO_EVAL_ENVS`), so a run learns the same on an idle and on a busy machine.
    """
    return step_seconds >= SUBPROCESS_MIN_STEP_SECONDS


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
