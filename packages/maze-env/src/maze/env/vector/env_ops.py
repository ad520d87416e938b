"""What every vector env does to each of its envs, in-process or in a worker process.

All vector envs describe, reset, step and call their envs with these functions (so they
produce the same trajectories for the same seeds and actions) and turn an env's error into
the same maze error kind (:func:`env_error_kind`, :func:`env_error`).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Optional

from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.errors import ConfigurationError, EnvWorkerError, InvalidActionError, MazeError

__all__ = [
    "EnvDescription",
    "EnvStepResult",
    "EnvResetResult",
    "describe_env",
    "step_with_autoreset",
    "reset_env",
    "call_env",
    "ENV_COMMANDS",
    "env_error_kind",
    "env_error",
]


class EnvDescription(NamedTuple):
    """What a vector env needs to know about one of its envs before stepping it."""

    observation_spaces_dict: dict[StepKeyType, spaces.Dict]
    action_spaces_dict: dict[StepKeyType, spaces.Dict]
    agent_counts_dict: dict[StepKeyType, int]
    actor_id: ActorID


EnvStepResult = tuple[dict[str, Any], Any, bool, bool, dict[str, Any], ActorID]
"""One env's part of a vector step: ``(observation, reward, terminated, truncated, info, actor_id)``.

A plain tuple, as it is built once per env and step.
"""

EnvResetResult = tuple[dict[str, Any], dict[str, Any], ActorID]
"""One env's part of a vector reset: ``(observation, info, actor_id)``."""


def describe_env(env: Any) -> EnvDescription:
    """Reads the spaces, agent counts and current actor of a structured env."""
    return EnvDescription(env.observation_spaces_dict, env.action_spaces_dict, env.agent_counts_dict, env.actor_id())


def step_with_autoreset(env: Any, action: dict[str, Any]) -> EnvStepResult:
    """Steps one env and resets it right away when its episode ended.

    Every vector env steps its envs with this function, so all of them produce the same
    trajectories for the same seeds and actions.

    Returns:
        ``(observation, reward, terminated, truncated, info, actor_id)``: the step's reward,
        ``terminated`` and ``truncated``, and the actor that acts next. When the episode went on, the
        observation and info are the step's own. When it ended, the observation is the first
        one of the new episode and the info is the reset info plus ``final_observation``
        (the last observation of the ended episode) and ``final_info`` (its last step info).
    """
    observation, reward, terminated, truncated, info = env.step(action)
    if terminated or truncated:
        new_observation, reset_info = env.reset()
        info = {**reset_info, "final_observation": observation, "final_info": info}
        observation = new_observation
    return observation, reward, terminated, truncated, info, env.actor_id()


def reset_env(env: Any, seed: Optional[int], options: Optional[dict]) -> EnvResetResult:
    """Resets one env and reads the actor that acts first."""
    observation, info = env.reset(seed=seed, options=options)
    return observation, info, env.actor_id()


def call_env(env: Any, method_name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``env.<method_name>(*args, **kwargs)``, or the attribute's value when it is no method.

    Raises:
        TypeError: Arguments were given for an attribute that is no method.
    """
    attribute = getattr(env, method_name)
    if callable(attribute):
        return attribute(*args, **kwargs)
    if args or kwargs:
        raise TypeError(f"{type(env).__name__}.{method_name} is no method, so it takes no arguments")
    return attribute


ENV_COMMANDS: dict[str, Callable[[Any, Any], Any]] = {
    "step": step_with_autoreset,
    "reset": lambda env, seed_and_options: reset_env(env, *seed_and_options),
    "call": lambda env, name_args_kwargs: call_env(env, *name_args_kwargs),
}
"""What a worker does to one env per command of a :class:`~maze.env.vector.vector_env.MessagingVectorEnv`, given
the env's payload (``reset``: ``(seed, options)``, ``call``: ``(method_name, args, kwargs)``)."""


_FORWARDED_ERRORS: tuple[type[MazeError], ...] = (InvalidActionError, ConfigurationError)
"""Maze error kinds that an env raises and the vector env re-raises as the same kind."""

_ERROR_KINDS = {kind.__name__: kind for kind in (*_FORWARDED_ERRORS, EnvWorkerError)}


def env_error_kind(error: BaseException) -> str:
    """The name of the error class a vector env raises for ``error`` raised inside one of its envs.

    ``InvalidActionError`` and ``ConfigurationError`` keep their kind; everything else
    (other maze errors included) becomes an ``EnvWorkerError``. A name, so that worker
    processes can send it.
    """
    for kind in _FORWARDED_ERRORS:
        if isinstance(error, kind):
            return kind.__name__
    return EnvWorkerError.__name__


def env_error(kind: str, vector_env: str, index: int, command: str, detail: str) -> MazeError:
    """The error a vector env raises when its env ``index`` failed during ``command``.

    Args:
        kind: The error class name from :func:`env_error_kind`.
        vector_env: Name of the vector env class.
        index: Index of the env that failed.
        command: What the env was asked to do (``"step"``, ``"reset"``, ...).
        detail: The env's error or traceback.
    """
    return _ERROR_KINDS.get(kind, EnvWorkerError)(
        f"env {index} of the {vector_env} raised during {command}(): {detail}"
    )
