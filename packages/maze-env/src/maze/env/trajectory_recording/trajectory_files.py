"""Trajectory files: one file per episode, ``<log_dir>/<episode id>.traj.npz`` (data only) or ``.pkl``.

**The data-only format** (the default, :mod:`~maze.env.trajectory_recording.data_format`): an
uncompressed zip of plain-dtype ``.npy`` arrays and one JSON tree. Reading it builds nothing but
arrays, JSON values and maze's record classes; MazeStates, MazeActions and renderers are stored
as data (dataclass fields, named tuples, or a class's ``to_data()``/``from_data()``) and rebuilt
only if the allow-list admits their class (maze classes marked ``@trajectory_data``, or the
modules you name in ``trusted_modules``). A value with no data-only form fails when it is
*written*, with a message naming its type and the fixes.

**Pickles** (``format="pickle"``, an explicit opt-in for states that cannot be data): cloudpickle
files ``<episode id>.pkl``. :func:`load_trajectory` reads them (and files of earlier maze
versions) with the allow-listed, allocation-bounded unpickler of
:mod:`~maze.env.trajectory_recording.safe_unpickler`; ``safe=False`` unpickles anything: use it
only for files you or your own pipeline wrote. ``python -m maze.rollout.convert <dir>`` turns
old pickle files into the data-only format.

Files are written atomically: the content goes to a temporary file in the same directory,
which is then renamed to its final name, so a process killed mid-write leaves no partial
file (at most a ``.tmp`` file).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Literal, Optional, Union

import cloudpickle
from maze.env.errors import MazeError
from maze.env.trajectory_recording.data_container import ContainerError, ReadLimits
from maze.env.trajectory_recording.data_format import read_data_trajectory, write_data_trajectory
from maze.env.trajectory_recording.data_values import TrajectoryDecodeError
from maze.env.trajectory_recording.pickle_guards import BUDGET_HINT, TrajectoryAllocationError
from maze.env.trajectory_recording.records import TrajectoryRecord
from maze.env.trajectory_recording.safe_unpickler import UnsafeTrajectoryError, safe_load
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriter
from maze.env.utils.files import atomic_write
from maze.env.utils.trust import check_trust_not_widened

__all__ = [
    "DATA_SUFFIX",
    "PICKLE_SUFFIX",
    "TRAJECTORY_FILE_PATTERNS",
    "TrajectoryFormat",
    "TrajectoryWriterFile",
    "TrajectoryLoadError",
    "episode_id_of",
    "is_trajectory_file",
    "load_trajectory",
    "trajectory_file_name",
]

DATA_SUFFIX = ".traj.npz"
"""File name suffix of the data-only format."""

PICKLE_SUFFIX = ".pkl"
"""File name suffix of (opt-in and legacy) pickle files."""

TRAJECTORY_FILE_PATTERNS = (f"*{DATA_SUFFIX}", f"*{PICKLE_SUFFIX}")
"""Glob patterns of trajectory files, data-only first."""

TrajectoryFormat = Literal["data", "pickle"]
"""``"data"``: the data-only format (default); ``"pickle"``: cloudpickle (explicit opt-in)."""

_SAFE_FILE_STEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_SUFFIXES = {"data": DATA_SUFFIX, "pickle": PICKLE_SUFFIX}


class TrajectoryLoadError(MazeError, ValueError):
    """A trajectory file is missing, unreadable, truncated, hostile or holds no trajectory record."""


class TrajectoryMemoryError(TrajectoryLoadError, MemoryError):
    """Loading a trajectory file would exceed its allocation budget, or memory ran out."""


def trajectory_file_name(episode_id: str, format: TrajectoryFormat = "data") -> str:
    """The file name of an episode: ``<episode id>.traj.npz`` (data) or ``<episode id>.pkl`` (pickle).

    Raises:
        ValueError: The id is no safe file name (letters, digits, ``_.-``), or the format is unknown.
    """
    if format not in _SUFFIXES:
        raise ValueError(f"unknown trajectory format {format!r}; use 'data' (the default) or 'pickle'")
    stem = str(episode_id)
    if not _SAFE_FILE_STEM.fullmatch(stem):
        raise ValueError(
            f"trajectory record id {stem!r} cannot be used as a file name; episode ids must consist of letters, "
            "digits, '_', '.' and '-' (e.g. a UUID)"
        )
    return stem + _SUFFIXES[format]


def is_trajectory_file(path: Union[str, Path]) -> bool:
    """Whether ``path``'s name is that of a trajectory file (either format)."""
    name = Path(path).name
    return name.endswith(DATA_SUFFIX) or name.endswith(PICKLE_SUFFIX)


def episode_id_of(path: Union[str, Path]) -> str:
    """The episode id a trajectory file's name carries (its name without the format's suffix)."""
    name = Path(path).name
    for suffix in (DATA_SUFFIX, PICKLE_SUFFIX):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return Path(path).stem


class TrajectoryWriterFile(TrajectoryWriter):
    """Writes each episode to its own file in ``log_dir`` (see the module doc).

    Args:
        log_dir: Directory of the files; created on the first write.
        format: ``"data"`` (default): ``<episode id>.traj.npz`` in the data-only format;
            ``"pickle"``: ``<episode id>.pkl`` with cloudpickle (an explicit opt-in for states
            that have no data-only form).
    """

    def __init__(self, log_dir: Union[str, Path] = "trajectory_data", format: TrajectoryFormat = "data") -> None:
        if format not in _SUFFIXES:
            raise ValueError(f"unknown trajectory format {format!r}; use 'data' (the default) or 'pickle'")
        self.log_dir = Path(log_dir)
        self.format = format

    def path_of(self, episode_record: TrajectoryRecord) -> Path:
        """The file ``episode_record`` is written to."""
        return self.log_dir / trajectory_file_name(episode_record.id, self.format)

    def write(self, episode_record: TrajectoryRecord) -> None:
        """Writes the record to ``<log_dir>/<record id>.<suffix>``, replacing the file atomically.

        Raises:
            TypeError: ``episode_record`` is no :class:`TrajectoryRecord`.
            ValueError: The record id is no safe file name (letters, digits, ``_.-``).
            TrajectoryDataError: (data format) A value in the record has no data-only form; the
                message names it and the fixes. Nothing is written.
        """
        if not isinstance(episode_record, TrajectoryRecord):
            raise TypeError(
                f"TrajectoryWriterFile.write expects a TrajectoryRecord, got {type(episode_record).__name__}"
            )
        path = self.path_of(episode_record)
        if self.format == "pickle":
            atomic_write(path, lambda file: cloudpickle.dump(episode_record, file), durable=False)
        else:
            atomic_write(path, lambda file: write_data_trajectory(file, episode_record), durable=False)


def load_trajectory(
    path: Union[str, Path],
    record_type: type[TrajectoryRecord] = TrajectoryRecord,
    safe: bool = True,
    trusted_modules: Iterable[str] = (),
    allocation_budget: Optional[int] = None,
) -> TrajectoryRecord:
    """Loads one trajectory file written by :class:`TrajectoryWriterFile` (either format).

    Data-only files (``.traj.npz``) are read within checked bounds (see
    :class:`~maze.env.trajectory_recording.data_container.ReadLimits`); pickles (``.pkl``, and
    any other name) by default (``safe=True``) with the allow-listed, allocation-bounded
    :func:`~maze.env.trajectory_recording.safe_unpickler.safe_load`.

    Args:
        path: The trajectory file.
        record_type: The record class the file must hold (e.g. ``StateTrajectoryRecord``).
        safe: Read pickles with the allow-listed unpickler; ``False`` unpickles anything (only
            for files you or your pipeline wrote: see the module doc). Data-only files are
            always read safely.
        trusted_modules: Modules whose classes may be rebuilt besides maze's (e.g. the package
            of your own env's MazeState and MazeAction classes).
        allocation_budget: Bytes loading may allocate; None: 64 times the file's size plus 64 MiB.

    Returns:
        The record.

    Raises:
        TrajectoryLoadError: The file is missing, truncated, corrupt or crafted, names classes
            outside the allow-list, or holds something other than a ``record_type``; the
            message names the file. :class:`TrajectoryMemoryError` (also a ``MemoryError``)
            when it would exceed the allocation budget or memory ran out.
        UntrustedTargetError: A run directory's config asks for ``safe=False`` or further
            ``trusted_modules`` (see :func:`~maze.env.utils.trust.check_trust_not_widened`).
    """
    path = Path(path)
    check_trust_not_widened(f"loading {path}", safe=safe, trusted_modules=trusted_modules)
    if not path.is_file():
        raise TrajectoryLoadError(f"trajectory file {path} does not exist (or is not a file)")
    data_format = path.name.endswith(DATA_SUFFIX)
    try:
        with path.open("rb") as file:
            if data_format:
                limits = ReadLimits(allocation_budget=allocation_budget)
                record = read_data_trajectory(file, trusted_modules, limits)
            elif safe:
                record = safe_load(file, trusted_modules, allocation_budget=allocation_budget)
            else:
                record = cloudpickle.load(file)
    except (UnsafeTrajectoryError, ContainerError, TrajectoryDecodeError) as error:
        raise TrajectoryLoadError(f"trajectory file {path}: {error}") from None
    except TrajectoryAllocationError as error:
        raise TrajectoryMemoryError(f"trajectory file {path}: {error}") from None
    except MemoryError:
        raise TrajectoryMemoryError(
            f"trajectory file {path} ({path.stat().st_size} bytes): ran out of memory while loading it; free "
            f"memory or lower the budget: {BUDGET_HINT}"
        ) from None
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
