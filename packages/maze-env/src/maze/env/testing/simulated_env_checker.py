"""Checks that an env keeps the :class:`~maze.env.core.mixins.SimulatedEnvMixin` contract.

:func:`check_simulated_env` drives the env to the middle of a seeded episode and checks:

* **copy**: ``clone_from`` and ``set_maze_state`` give the same MazeState, observation and actor;
* **independence**: stepping (and re-seeding) a clone changes neither the original's state
  nor its future (the clone shares no random generator, list or other mutable state); the
  original then continues exactly as a second clone does;
* **seeding**: ``reset(seed=s)`` then ``set_maze_state(state)`` gives the same future twice,
  whatever the env did before.

Every failure raises an ``AssertionError`` naming the check and the step; an env without the
mixin raises :class:`~maze.env.errors.SimulationUnsupportedError`.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, Callable, Optional

import numpy as np
from gymnasium.utils.env_checker import data_equivalence
from maze.env.core.simulation import require_simulated_env
from maze.env.utils.library_output import show_library_output

logger = logging.getLogger(__name__)

__all__ = ["check_simulated_env"]

_Step = tuple[Any, Any, bool, bool, Any, Any]
"""``(observation, reward, terminated, truncated, actor_id, maze_state)`` of one step."""


def check_simulated_env(
    env: Any,
    make_env: Optional[Callable[[], Any]] = None,
    warmup_steps: int = 7,
    steps: int = 6,
    seed: int = 1234,
) -> None:
    """Checks the SimulatedEnvMixin contract of ``env`` (a MazeEnv or wrapper stack); raises on the first failure.

    Args:
        env: The env to check; it is reset and stepped.
        make_env: Builds further envs of the same kind and config (None: deep copies of
            ``env``, reset with another seed before they are used, so they start elsewhere).
        warmup_steps: Random steps taken before the checks (to reach a mid-episode state).
        steps: Steps compared per future.
        seed: Seed of the env and of the random actions.

    Raises:
        SimulationUnsupportedError: ``env`` lacks the mixin.
        AssertionError: A check failed (the message names it).
    """
    require_simulated_env(env, "check_simulated_env")
    actions = _ActionSource(env, seed)
    env.reset(seed=seed)
    for _ in range(warmup_steps):
        _, _, terminated, truncated, _ = env.step(actions.next(env))
        if terminated or truncated:
            env.reset(seed=seed + 1)

    def fresh() -> Any:
        other = make_env() if make_env is not None else copy.deepcopy(env)
        other.reset(seed=seed + 99)
        return other

    state = copy.deepcopy(env.get_maze_state())
    reference, diverging, from_state = fresh(), fresh(), fresh()
    reference.clone_from(env)
    diverging.clone_from(env)
    from_state.set_maze_state(state)
    for name, other in (("clone_from", reference), ("set_maze_state", from_state)):
        _assert(_same(other.get_maze_state(), state), name, "the MazeState differs from the original's")
        _assert(other.actor_id() == env.actor_id(), name, "the acting actor differs from the original's")

    diverging.reset(seed=seed + 7)  # re-seeding and stepping a clone must leave the original alone
    diverging.clone_from(env)
    for _ in range(steps):
        if _step(diverging, actions.next(diverging))[2:4] != (False, False):
            break
    _assert(_same(env.get_maze_state(), state), "independence", "stepping a clone changed the original's MazeState")
    planned = actions.plan(env, steps)
    _compare(_rollout(env, planned), _rollout(reference, planned), "independence (original vs. an untouched clone)")

    first, second = fresh(), fresh()
    second.reset(seed=seed + 3)
    for _ in range(3):  # a different past must not matter
        if _step(second, actions.next(second))[2:4] != (False, False):
            break
    trajectories = []
    for other in (first, second):
        other.reset(seed=seed + 5)
        other.set_maze_state(state)
        trajectories.append(_rollout(other, planned))
    _compare(*trajectories, "seeding (reset(seed) + set_maze_state twice)")
    show_library_output()
    logger.info(f"check_simulated_env: {type(env).__name__} passed (copy, independence, seeding)")


class _ActionSource:
    """Seeded random actions of the acting sub-step (the env's spaces are not touched)."""

    def __init__(self, env: Any, seed: int) -> None:
        self.spaces = copy.deepcopy(dict(env.action_spaces_dict))
        for offset, space in enumerate(self.spaces.values()):
            space.seed(seed + offset)

    def next(self, env: Any) -> Any:
        return self.spaces[env.actor_id()[0]].sample()

    def plan(self, env: Any, steps: int) -> list[Any]:
        """Actions for ``steps`` steps, drawn for a copy of ``env`` so that they follow its actors."""
        scout, planned = copy.deepcopy(env), []
        for _ in range(steps):
            planned.append(self.next(scout))
            if scout.step(planned[-1])[2:4] != (False, False):
                break
        return planned


def _step(env: Any, action: Any) -> _Step:
    observation, reward, terminated, truncated, _ = env.step(copy.deepcopy(action))
    return observation, reward, bool(terminated), bool(truncated), env.actor_id(), copy.deepcopy(env.get_maze_state())


def _rollout(env: Any, actions: list[Any]) -> list[_Step]:
    steps = []
    for action in actions:
        steps.append(_step(env, action))
        if steps[-1][2] or steps[-1][3]:
            break
    return steps


def _compare(first: list[_Step], second: list[_Step], check: str) -> None:
    _assert(len(first) == len(second), check, f"the futures end after {len(first)} and {len(second)} steps")
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        for position, part in enumerate(("observation", "reward", "terminated", "truncated", "actor", "MazeState")):
            _assert(
                _same(a[position], b[position]),
                check,
                f"the {part} of step {index} differs: {a[position]!r} vs {b[position]!r}",
            )


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (np.ndarray, dict, np.number)) or isinstance(b, (np.ndarray, dict, np.number)):
        return data_equivalence(a, b)
    return bool(a == b)


def _assert(condition: bool, check: str, problem: str) -> None:
    if not condition:
        raise AssertionError(f"check_simulated_env [{check}]: {problem}")
