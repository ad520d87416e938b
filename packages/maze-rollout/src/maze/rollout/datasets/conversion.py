"""Turns recorded MazeStates and MazeActions into the observations and actions a policy sees."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import numpy as np
from maze.env.core.actor import ActorID
from maze.env.errors import MazeError
from maze.env.trajectory_recording.records import StateTrajectoryRecord, TrajectoryRecord
from maze.env.trajectory_recording.spaces_records import SpacesRecord, SpacesTrajectoryRecord, StructuredSpacesRecord

__all__ = ["TrajectoryConversionError", "to_spaces_trajectory"]


class TrajectoryConversionError(MazeError, ValueError):
    """A trajectory cannot be converted into observations and actions (or processed)."""


def to_spaces_trajectory(record: TrajectoryRecord, conversion_env: Optional[Any]) -> SpacesTrajectoryRecord:
    """Returns the observations and actions of an episode, sub-step by sub-step.

    A :class:`SpacesTrajectoryRecord` already holds them and is returned unchanged. For a
    :class:`StateTrajectoryRecord`, each recorded step goes through
    ``conversion_env.get_observation_and_action_dicts(maze_state, maze_action, first_step)``,
    so the observations are those the (wrapped) env would have produced; envs with several
    sub-steps per MazeState (e.g. the structured Cutting-2D env) yield one
    :class:`SpacesRecord` per sub-step. Each sub-step record gets the actor
    ``ActorID(step_key, 0)``; the step's reward, flags and info go to its last sub-step
    record, the earlier ones get reward 0.

    Args:
        record: The recorded episode.
        conversion_env: The env (or wrapper stack) whose conversions apply; only needed for
            a :class:`StateTrajectoryRecord`.

    Raises:
        TrajectoryConversionError: A MazeState record without ``conversion_env``, a record
            of an unknown type, or an env that returns no observation or no action for a
            sub-step.
    """
    if isinstance(record, SpacesTrajectoryRecord):
        return record
    if not isinstance(record, StateTrajectoryRecord):
        raise TrajectoryConversionError(
            f"cannot convert a {type(record).__name__}; expected a StateTrajectoryRecord or a SpacesTrajectoryRecord"
        )
    if conversion_env is None:
        raise TrajectoryConversionError(
            "the trajectory holds MazeStates (StateTrajectoryRecord); pass a conversion_env_factory that builds the "
            "(wrapped) env whose observation and action conversions apply"
        )
    converted = SpacesTrajectoryRecord(id=record.id)
    for index, state_record in enumerate(record.step_records):
        observations, actions = conversion_env.get_observation_and_action_dicts(
            state_record.maze_state, state_record.maze_action, index == 0
        )
        if not observations or actions is None or set(actions) != set(observations):
            raise TrajectoryConversionError(
                f"step {index}: {type(conversion_env).__name__}.get_observation_and_action_dicts returned observations "
                f"for sub-steps {_keys(observations)} and actions for {_keys(actions)}; both are needed for every "
                "sub-step"
            )
        if index == 0:
            _check_structure(observations, getattr(conversion_env, "observation_spaces_dict", None), "observation")
            _check_structure(actions, getattr(conversion_env, "action_spaces_dict", None), "action")
        last_key = list(observations)[-1]
        step = StructuredSpacesRecord()
        for key, observation in observations.items():
            last = key == last_key
            step.append(
                SpacesRecord(
                    actor_id=ActorID(key, 0),
                    observation=observation,
                    action=actions[key],
                    reward=state_record.reward if last else 0.0,
                    terminated=state_record.terminated and last,
                    truncated=state_record.truncated and last,
                    info=state_record.info if last else None,
                )
            )
        converted.append(step)
    return converted


def _check_structure(step_dict: dict, spaces_dict: Optional[dict], what: str) -> None:
    """Checks the keys and array shapes of converted values against the env's dict spaces.

    Catches a conversion env that does not match the recorded env (its conversions may
    accept any MazeState). Values are not checked against bounds: recorded data may
    legitimately leave them.
    """
    if spaces_dict is None:
        return
    for step_key, value in step_dict.items():
        space = spaces_dict.get(step_key)
        expected = getattr(space, "spaces", None)
        if expected is None:
            continue
        found = {key: np.shape(item) for key, item in value.items()} if isinstance(value, Mapping) else None
        wanted = {key: subspace.shape for key, subspace in expected.items()}
        if (
            found is None
            or set(found) != set(wanted)
            or any(wanted[key] is not None and found[key] != wanted[key] for key in wanted)
        ):
            raise TrajectoryConversionError(
                f"the converted {what} of sub-step {step_key!r} has the structure {found if found is not None else type(value).__name__}, "
                f"but the conversion env's {what} space expects {wanted}; does conversion_env_factory build the env "
                "(and wrappers) the trajectories were recorded with?"
            )


def _keys(step_dict: Optional[dict]) -> list[str]:
    return [] if step_dict is None else [str(key) for key in step_dict]
