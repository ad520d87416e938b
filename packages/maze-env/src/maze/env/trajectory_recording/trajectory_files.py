"""Trajectory files: one cloudpickle file per episode, ``<log_dir>/<episode id>.pkl``.

**Trust boundary.** The files are pickles (the records hold arbitrary MazeStates,
MazeActions and the renderer, so a plain-data format cannot replace pickle). A plain
``pickle.load`` runs whatever code the file tells it to run; :func:`load_trajectory`
therefore reads files with an allow-listed unpickler by default (maze's classes, numpy,
plain data, and the modules you name in ``trusted_modules``) and refuses anything else.
``safe=False`` unpickles anything: use it only for files you or your own pipeline wrote.

Files are written atomically: the pickle goes to a temporary file in the same directory,
which is then renamed to its final name, so a process killed mid-write leaves no partial
``.pkl`` (at most a ``.tmp`` file).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Union

import cloudpickle
from maze.env.errors import MazeError
from maze.env.trajectory_recording.records import TrajectoryRecord
from maze.env.trajectory_recording.safe_unpickler import UnsafeTrajectoryError, safe_load
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriter
from maze.env.utils.files import atomic_write
from maze.env.utils.trust import check_trust_not_widened

__all__ = ["TrajectoryWriterFile", "TrajectoryLoadError", "load_trajectory"]

_SAFE_FILE_STEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


class TrajectoryLoadError(MazeError, ValueError):
    """A trajectory file is missing, unreadable, truncated or holds no trajectory record."""


class TrajectoryWriterFile(TrajectoryWriter):
    """Writes each episode to ``<log_dir>/<episode id>.pkl`` with cloudpickle (see the module doc).

    Args:
        log_dir: Directory of the files; created on the first write.
    """

    def __init__(self, log_dir: Union[str, Path] = "trajectory_data") -> None:
        self.log_dir = Path(log_dir)

    def write(self, episode_record: TrajectoryRecord) -> None:
        """Pickles the record to ``<log_dir>/<record id>.pkl``, replacing the file atomically.

        Raises:
            TypeError: ``episode_record`` is no :class:`TrajectoryRecord`.
            ValueError: The record id is no safe file name (letters, digits, ``_.-``).
        """
        if not isinstance(episode_record, TrajectoryRecord):
            raise TypeError(
                f"TrajectoryWriterFile.write expects a TrajectoryRecord, got {type(episode_record).__name__}"
            )
        stem = str(episode_record.id)
        if not _SAFE_FILE_STEM.fullmatch(stem):
            raise ValueError(
                f"trajectory record id {stem!r} cannot be used as a file name; episode ids must consist of letters, "
                "digits, '_', '.' and '-' (e.g. a UUID)"
            )
        atomic_write(self.log_dir / f"{stem}.pkl", lambda file: cloudpickle.dump(episode_record, file), durable=False)


def load_trajectory(
    path: Union[str, Path],
    record_type: type[TrajectoryRecord] = TrajectoryRecord,
    safe: bool = True,
    trusted_modules: Iterable[str] = (),
) -> TrajectoryRecord:
    """Loads one trajectory file written by :class:`TrajectoryWriterFile`.

    By default (``safe=True``) the file is read with the allow-listed
    :class:`~maze.env.trajectory_recording.safe_unpickler.SafeUnpickler`: it loads maze's
    records, numpy arrays and plain data, and refuses anything that could run code.

    Args:
        path: The ``.pkl`` file.
        record_type: The record class the file must hold (e.g. ``StateTrajectoryRecord``).
        safe: Use the allow-listed unpickler; ``False`` unpickles anything (only for files you
            or your pipeline wrote: see the module doc).
        trusted_modules: Modules whose classes the safe unpickler also loads (e.g. the package
            of your own env's MazeState and MazeAction classes).

    Returns:
        The record.

    Raises:
        TrajectoryLoadError: The file is missing, truncated or corrupt, needs code that
            cannot be imported, names classes outside the allow-list (safe mode), or holds
            something other than a ``record_type``; the message names the file.
        UntrustedTargetError: A run directory's config asks for ``safe=False`` or further
            ``trusted_modules`` (see :func:`~maze.env.utils.trust.check_trust_not_widened`).
    """
    path = Path(path)
    check_trust_not_widened(f"loading {path}", safe=safe, trusted_modules=trusted_modules)
    if not path.is_file():
        raise TrajectoryLoadError(f"trajectory file {path} does not exist (or is not a file)")
    try:
        with path.open("rb") as file:
            record = safe_load(file, trusted_modules) if safe else cloudpickle.load(file)
    except UnsafeTrajectoryError as error:
        raise TrajectoryLoadError(f"trajectory file {path}: {error}") from None
    except Exception as error:
        raise TrajectoryLoadError(
            f"trajectory file {path} cannot be loaded ({type(error).__name__}: {error}); it is truncated or "
            "corrupt, or was written with code (env, state classes) that is not importable here"
        ) from error
    if not isinstance(record, record_type):
        raise TrajectoryLoadError(
            f"trajectory file {path} holds a {type(record).__module__}.{type(record).__qualname__}, not a "
            f"{record_type.__name__}; is it a file written by TrajectoryWriterFile?"
        )
    return record
