"""The project's env checker: gymnasium's API checks plus the structured-env contract.

:func:`check_env` runs on any maze env or wrapper stack. A flat env (a single sub-step key)
goes through :func:`gymnasium.utils.env_checker.check_env` first. Structured envs whose spaces
differ per sub-step run gymnasium's space checkers for every sub-step instead. Both then take
two seeded random rollouts that check, at every step, what gymnasium cannot know about:

* ``actor_id()`` is an :class:`~maze.env.core.actor.ActorID` of a known sub-step, with an
  agent id within that sub-step's agent count (unless the count is ``-1``, dynamic);
* every observation lies in the observation space of the actor that acts next, and
  ``observation_space`` / ``action_space`` are that actor's spaces;
* ``step`` returns ``(obs, reward, terminated, truncated, info)`` with bool flags;
* observations are fresh objects on every call (no buffer is reused between steps);
* the same seed and the same actions give the same actors, observations and rewards.

Every failure raises an ``AssertionError`` that names the check, the step and the actor; a
passing env gets one line on stdout saying what was checked.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass, field
from typing import Any, Optional, Union

import numpy as np
from gymnasium import error as gym_error
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gym_check_env
from gymnasium.utils.env_checker import check_space_limit, data_equivalence
from gymnasium.utils.passive_env_checker import check_action_space, check_obs, check_observation_space
from maze.env.core.actor import ActorID
from maze.env.utils.library_output import show_library_output

logger = logging.getLogger(__name__)

__all__ = ["check_env"]

_SEED = 1234
_WRAPPED_ENV_WARNING = r".*is different from the unwrapped version.*"
_STRUCTURE_ATTRIBUTES = ("observation_spaces_dict", "action_spaces_dict", "agent_counts_dict", "actor_id")

_Where = Union[int, str]
"""A step index, or ``"reset"``, used in failure messages."""


@dataclass
class _Transition:
    """What one rollout step produced, kept to compare a second seeded rollout against."""

    actor: ActorID
    observation: Any
    reward: Any = None
    terminated: bool = False
    truncated: bool = False


@dataclass
class _Trajectory:
    """Reset and step results of one rollout, plus the actions it took."""

    transitions: list[_Transition] = field(default_factory=list)
    actions: list[Any] = field(default_factory=list)


def check_env(env: Any, n_steps: int = 50, verbose: bool = True) -> None:
    """Checks that ``env`` follows the gymnasium API and the structured-env contract.

    The env is reset and stepped (``2 * n_steps`` steps plus gymnasium's own checks); its
    action spaces are re-seeded. Gymnasium's advisory warnings (e.g. unbounded boxes) stay
    warnings; only its warning about checking a wrapped env is silenced.

    Args:
        env: A maze env (MazeEnv, GymMazeEnv, a wrapper stack, ...).
        n_steps: Env steps of each of the two seeded random rollouts.
        verbose: Show one line saying what was checked when the env passes (a log record of this module, on
            stdout unless the application configured logging).

    Raises:
        AssertionError: Naming the failed check, the step and the acting actor.
    """
    missing = [name for name in _STRUCTURE_ATTRIBUTES if not hasattr(env, name)]
    if missing:
        raise _failure("structure", "construction", None, f"{type(env).__name__} lacks {missing}")
    observation_spaces, action_spaces = env.observation_spaces_dict, env.action_spaces_dict
    agent_counts = env.agent_counts_dict
    if not (set(observation_spaces) == set(action_spaces) == set(agent_counts)):
        raise _failure(
            "sub-step keys",
            "construction",
            None,
            f"observation_spaces_dict has keys {list(observation_spaces)}, action_spaces_dict {list(action_spaces)} "
            f"and agent_counts_dict {list(agent_counts)}; all three must list the same sub-steps",
        )
    flat = len(observation_spaces) == 1
    if flat:
        _run_gymnasium_checker(env)
    else:
        _check_sub_step_spaces(observation_spaces, action_spaces)
    reference = _rollout(env, n_steps)
    deterministic = not getattr(getattr(env, "spec", None), "nondeterministic", False)
    if deterministic:
        _rollout(env, n_steps, reference)
    if verbose:
        show_library_output()
        logger.info(_success_line(env, flat, n_steps, reference, deterministic))


def _success_line(env: Any, flat: bool, n_steps: int, reference: _Trajectory, deterministic: bool) -> str:
    """What a passing env was checked for, in one line."""
    keys = list(env.observation_spaces_dict)
    spaces_check = "gymnasium's env checker" if flat else f"gymnasium's space checks of sub-steps {keys}"
    episodes = sum(transition.terminated or transition.truncated for transition in reference.transitions)
    replay = "replayed with the same seed: identical" if deterministic else "not replayed (spec.nondeterministic)"
    return (
        f"check_env: {type(env).__name__} passed ({spaces_check}; {n_steps} random steps, {episodes} episode(s) "
        f"ended: actor ids, observations in their spaces, (obs, reward, terminated, truncated, info), fresh "
        f"observations; {replay})"
    )


def _run_gymnasium_checker(env: Any) -> None:
    """Runs gymnasium's full checker on a flat env (rendering is left to the viewers' tests)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_WRAPPED_ENV_WARNING)
        try:
            gym_check_env(env, skip_render_check=True)
        except (AssertionError, gym_error.Error) as error:  # gymnasium raises both for a failed check
            raise AssertionError(f"check_env [gymnasium check_env] failed: {error}") from error


def _check_sub_step_spaces(observation_spaces: dict, action_spaces: dict) -> None:
    """Runs gymnasium's space checkers on the spaces of every sub-step."""
    for key in observation_spaces:
        for kind, space, check_space in (
            ("observation", observation_spaces[key], check_observation_space),
            ("action", action_spaces[key], check_action_space),
        ):
            try:
                check_space(space)
                check_space_limit(space, kind)
            except (AssertionError, TypeError) as error:
                raise AssertionError(
                    f"check_env [{kind} space] failed for sub-step {key!r} ({space}): {error}"
                ) from error


def _rollout(env: Any, n_steps: int, reference: Optional[_Trajectory] = None) -> _Trajectory:
    """Resets with a fixed seed and takes ``n_steps`` steps, checking every result.

    Without ``reference`` the actions are sampled from seeded action spaces; with it, its
    actions are replayed and every result must equal the reference's.
    """
    for offset, space in enumerate(env.action_spaces_dict.values()):
        space.seed(_SEED + offset)
    trajectory = _Trajectory()
    previous = _check_reset(env, env.reset(seed=_SEED), "reset", trajectory, reference)
    for step in range(n_steps):
        actor = trajectory.transitions[-1].actor
        action = reference.actions[step] if reference is not None else env.action_space.sample()
        trajectory.actions.append(action)
        result = env.step(action)
        observation = _check_step(env, result, step, actor, trajectory, reference)
        _check_fresh(previous, observation, step, actor)
        previous = observation
        if trajectory.transitions[-1].terminated or trajectory.transitions[-1].truncated:
            previous = _check_reset(env, env.reset(), f"reset after step {step}", trajectory, reference)
    return trajectory


def _check_reset(
    env: Any, result: Any, where: _Where, trajectory: _Trajectory, reference: Optional[_Trajectory]
) -> Any:
    """Checks a reset result; returns its observation."""
    if not (isinstance(result, tuple) and len(result) == 2):
        raise _failure(
            "reset returns (obs, info)",
            where,
            None,
            f"reset returned {type(result).__name__} {_short(result)}",
        )
    observation, info = result
    if not isinstance(info, dict):
        raise _failure("info is a dict", where, None, f"reset returned info {_short(info)}")
    _record(env, _Transition(env.actor_id(), observation), where, trajectory, reference)
    return observation


def _check_step(
    env: Any, result: Any, step: int, actor: ActorID, trajectory: _Trajectory, reference: Optional[_Trajectory]
) -> Any:
    """Checks a step result; returns its observation."""
    if not (isinstance(result, tuple) and len(result) == 5):
        raise _failure(
            "step returns (obs, reward, terminated, truncated, info)",
            step,
            actor,
            f"step returned {type(result).__name__} {_short(result)}",
        )
    observation, reward, terminated, truncated, info = result
    for name, flag in (("terminated", terminated), ("truncated", truncated)):
        if not isinstance(flag, (bool, np.bool_)):
            raise _failure(f"{name} is a bool", step, actor, f"got {flag!r}")
    if not (isinstance(reward, (int, float, np.number, np.ndarray)) and not isinstance(reward, bool)):
        raise _failure(
            "reward is a number or an array",
            step,
            actor,
            f"got {type(reward).__name__} {_short(reward)}",
        )
    if not isinstance(info, dict):
        raise _failure("info is a dict", step, actor, f"step returned info {_short(info)}")
    transition = _Transition(env.actor_id(), observation, reward, bool(terminated), bool(truncated))
    _record(env, transition, step, trajectory, reference)
    return observation


def _record(
    env: Any, transition: _Transition, where: _Where, trajectory: _Trajectory, reference: Optional[_Trajectory]
) -> None:
    """Checks the actor and observation of a transition, compares it with the reference and keeps it."""
    _check_actor(env, transition.actor, where)
    _check_observation(env, transition.observation, where, transition.actor)
    if reference is not None:
        _compare(reference.transitions[len(trajectory.transitions)], transition, where)
    trajectory.transitions.append(transition)


def _check_actor(env: Any, actor: Any, where: _Where) -> None:
    """``actor`` is an ActorID of a known sub-step with an agent id within its count."""
    if not isinstance(actor, ActorID):
        raise _failure("actor_id() returns an ActorID", where, actor, f"got {type(actor).__name__}")
    counts = env.agent_counts_dict
    if actor.step_key not in counts:
        raise _failure(
            "actor step key is a known sub-step",
            where,
            actor,
            f"step key {actor.step_key!r} is not one of {list(counts)}",
        )
    count = counts[actor.step_key]
    if not (isinstance(actor.agent_id, (int, np.integer)) and (count == -1 or 0 <= actor.agent_id < count)):
        raise _failure(
            "actor agent id within the agent count",
            where,
            actor,
            f"agent id {actor.agent_id!r}, but sub-step {actor.step_key!r} has {count} agent(s)",
        )


def _check_observation(env: Any, observation: Any, where: _Where, actor: ActorID) -> None:
    """The observation lies in the next actor's space, and the current spaces are that actor's."""
    key = actor.step_key
    space = env.observation_spaces_dict[key]
    if env.observation_space != space:
        raise _failure(
            "observation_space follows the actor",
            where,
            actor,
            f"observation_space is {env.observation_space}, observation_spaces_dict[{key!r}] is {space}",
        )
    if env.action_space != env.action_spaces_dict[key]:
        raise _failure(
            "action_space follows the actor",
            where,
            actor,
            f"action_space is {env.action_space}, action_spaces_dict[{key!r}] is {env.action_spaces_dict[key]}",
        )
    if not _contains(space, observation):
        raise _failure(
            "observation in the actor's observation space",
            where,
            actor,
            f"{_describe_mismatch(space, observation)}",
        )
    check_obs(observation, space, "reset" if isinstance(where, str) else "step")


def _check_fresh(previous: Any, observation: Any, step: int, actor: ActorID) -> None:
    """No mutable part of the new observation is (or shares memory with) part of the previous one."""
    shared = _shared_parts(previous, observation, "observation")
    if shared:
        raise _failure(
            "observations are fresh objects",
            step,
            actor,
            f"{', '.join(shared)} reuse(s) objects of the previous observation; return new arrays and dicts "
            "(e.g. .copy()) since callers keep observations",
        )


def _compare(expected: _Transition, actual: _Transition, where: _Where) -> None:
    """A replayed transition equals the reference transition."""
    mismatches = [
        name
        for name in ("actor", "observation", "reward", "terminated", "truncated")
        if not data_equivalence(getattr(expected, name), getattr(actual, name))
    ]
    if mismatches:
        raise _failure(
            "seeded reset is deterministic",
            where,
            actual.actor,
            f"with the same seed and actions, {mismatches} differ: expected "
            f"{ {name: _short(getattr(expected, name)) for name in mismatches} }, got "
            f"{ {name: _short(getattr(actual, name)) for name in mismatches} }",
        )


def _failure(check: str, where: _Where, actor: Any, detail: str) -> AssertionError:
    """The checker's error: names the check, the step (or ``"reset"``) and the actor."""
    step = f"at step {where}" if isinstance(where, int) else f"at {where}"
    return AssertionError(f"check_env [{check}] failed {step} (actor {actor}): {detail}")


def _contains(space: spaces.Space, observation: Any) -> bool:
    try:
        return bool(space.contains(observation))
    except Exception:  # a malformed observation may make contains() itself fail
        return False


def _describe_mismatch(space: spaces.Space, observation: Any) -> str:
    """Names the keys of a dict observation that do not fit the dict space."""
    if isinstance(space, spaces.Dict) and isinstance(observation, dict):
        missing = sorted(set(space.spaces) - set(observation))
        extra = sorted(set(observation) - set(space.spaces))
        outside = [key for key in space.spaces if key in observation and not _contains(space[key], observation[key])]
        return f"missing keys {missing}, unexpected keys {extra}, values outside their space: {outside} (space {space})"
    return f"{_short(observation)} is not in {space}"


def _shared_parts(first: Any, second: Any, path: str) -> list[str]:
    """Paths of the mutable parts (dicts, lists, arrays) that two observations share."""
    if isinstance(first, np.ndarray) and isinstance(second, np.ndarray):
        return [path] if np.may_share_memory(first, second) else []
    if isinstance(first, (dict, list)) and first is second:
        return [path]
    if isinstance(first, dict) and isinstance(second, dict):
        keys = first.keys() & second.keys()
        return [part for key in keys for part in _shared_parts(first[key], second[key], f"{path}[{key!r}]")]
    if isinstance(first, tuple) and isinstance(second, tuple):
        pairs = enumerate(zip(first, second, strict=False))
        return [part for index, (a, b) in pairs for part in _shared_parts(a, b, f"{path}[{index}]")]
    return []


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
