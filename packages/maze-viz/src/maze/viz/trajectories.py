"""Recorded episodes for the viewers: finding and loading trajectory files, drawing and describing steps.

Rollouts (``maze-run``, or a ``TrajectoryRecordingWrapper`` inside
``SimpleTrajectoryRecordingSetup``) write one file per episode,
``trajectory_data/<episode id>.traj.npz`` (data-only; ``.pkl`` for pickles written by opt-in
or by earlier versions). The viewers take such a file's path or the loaded
:class:`~maze.env.trajectory_recording.records.StateTrajectoryRecord`.

Files are loaded with maze-env's :func:`load_trajectory`, which reads data-only files within
checked bounds and pickles with an allow-listed, allocation-bounded unpickler.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, Union

from maze.env.core.rendering import Renderer
from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording.records import StateRecord, StateTrajectoryRecord
from maze.env.trajectory_recording.trajectory_files import (
    TRAJECTORY_FILE_PATTERNS,
    TrajectoryLoadError,
    load_trajectory,
)

__all__ = [
    "TrajectoryInput",
    "trajectory_files",
    "load_state_trajectory",
    "replay_renderer",
    "render_step",
    "describe_step",
]

TrajectoryInput = Union[StateTrajectoryRecord, str, os.PathLike]
"""A recorded episode, or the path of its trajectory file."""

_GYM_HINT = (
    "plain gymnasium envs cannot be set to a recorded state, so their episodes cannot be replayed: render them "
    "while they run (maze-run ... runner=sequential runner.render=true), or pass renderer=<a maze Renderer that "
    "draws the recorded MazeStates>"
)


def trajectory_files(directory: Union[str, os.PathLike]) -> list[Path]:
    """The trajectory files (``*.traj.npz`` and ``*.pkl``) below ``directory``, sorted by path.

    Raises:
        TrajectoryLoadError: ``directory`` is no directory or holds no trajectory file.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise TrajectoryLoadError(
            f"trajectory directory {directory} does not exist; pass the trajectory_data/ directory of a rollout"
        )
    files = sorted(
        {path for pattern in TRAJECTORY_FILE_PATTERNS for path in directory.rglob(pattern) if path.is_file()}
    )
    if not files:
        raise TrajectoryLoadError(
            f"no trajectory files (*.traj.npz, *.pkl) in {directory}; record episodes first, e.g. with a rollout "
            "(maze-run env=... policy=...; runner.record_trajectory=true), which writes trajectory_data/"
        )
    return files


def load_state_trajectory(source: TrajectoryInput, trusted_modules: Sequence[str] = ()) -> StateTrajectoryRecord:
    """The recorded episode ``source`` (returned as is) or the one in the trajectory file ``source``.

    Files are read with maze-env's :func:`load_trajectory`: name the package of your own env's
    MazeState/MazeAction classes in ``trusted_modules``.

    Raises:
        TrajectoryLoadError: The path is a directory, is missing, corrupt or holds no
            StateTrajectoryRecord, or the episode has no steps.
    """
    if isinstance(source, StateTrajectoryRecord):
        record = source
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            raise TrajectoryLoadError(
                f"{path} is a directory; pass one of its trajectory files, e.g. trajectory_files({str(path)!r})[0]"
            )
        record = load_trajectory(path, StateTrajectoryRecord, trusted_modules=trusted_modules)
    else:
        raise TrajectoryLoadError(
            f"expected a StateTrajectoryRecord or the path of a trajectory file (*.traj.npz, *.pkl), got {type(source).__name__}"
        )
    if len(record) == 0:
        raise TrajectoryLoadError(f"the recorded episode {record.id!r} has no steps; there is nothing to show")
    return record


def replay_renderer(record: StateTrajectoryRecord, renderer: Optional[Renderer] = None) -> Renderer:
    """The renderer that draws ``record``: ``renderer`` when given, else the one recorded with it.

    Raises:
        ConfigurationError: There is none (e.g. a gymnasium env's episode); the message
            says what to do instead.
    """
    chosen = renderer if renderer is not None else record.renderer
    if chosen is None:
        raise ConfigurationError(f"the episode {record.id!r} was recorded without a renderer; {_GYM_HINT}")
    if not isinstance(chosen, Renderer):
        raise ConfigurationError(f"renderer must be a maze Renderer, got {type(chosen).__name__}")
    if not chosen.replayable:
        raise ConfigurationError(f"{type(chosen).__name__} can only draw the live env; {_GYM_HINT}")
    return chosen


def render_step(record: StateTrajectoryRecord, renderer: Renderer, index: int, **renderer_args: Any) -> None:
    """Draws step ``index`` of ``record``: its MazeState, MazeAction and events, plus ``renderer_args``.

    Raises:
        IndexError: ``index`` is outside ``[0, len(record) - 1]``.
    """
    if not 0 <= index < len(record):
        raise IndexError(f"step {index} is outside the episode's steps 0..{len(record) - 1}")
    step = record.step_records[index]
    renderer.render(step.maze_state, step.maze_action, step.step_event_log, **renderer_args)


def describe_step(step: StateRecord) -> dict[str, str]:
    """What happened in a step, as text: ``action``, ``reward``, ``done`` and one line per event in ``events``."""
    events = step.step_event_log.events if step.step_event_log is not None else []
    lines = [
        f"{event.interface_class.__name__}.{event.interface_method.__name__}({_attributes(event.attributes)})"
        for event in events
    ]
    flags = "terminated" if step.terminated else "truncated" if step.truncated else "no"
    return {
        "action": repr(step.maze_action),
        "reward": f"{float(step.reward):.3f}" if _is_number(step.reward) else repr(step.reward),
        "done": flags,
        "events": "\n".join(lines) or "(none)",
    }


def _attributes(attributes: dict[str, Any]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in attributes.items())


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True
