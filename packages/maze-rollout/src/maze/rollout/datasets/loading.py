"""Finds trajectory files and loads, converts and processes them, in this process or in workers.

Trajectory files are pickles, read with the allow-listed unpickler of
:mod:`maze.env.trajectory_recording.trajectory_files` (maze, numpy and plain-data classes;
your own classes only through ``trusted_modules``).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable, Optional, Union

import cloudpickle
from maze.env.errors import MazeError
from maze.env.trajectory_recording.records import TrajectoryRecord
from maze.env.trajectory_recording.spaces_records import SpacesTrajectoryRecord
from maze.env.trajectory_recording.trajectory_files import (
    TRAJECTORY_FILE_PATTERNS,
    TrajectoryLoadError,
    load_trajectory,
)
from maze.env.utils.main_guard import check_main_guard, reimport_note
from maze.env.utils.trust import check_trust_not_widened
from maze.rollout.datasets.conversion import TrajectoryConversionError, to_spaces_trajectory
from maze.rollout.datasets.trajectory_processor import TrajectoryProcessor

__all__ = ["InputData", "find_trajectory_files", "load_trajectories", "resolve_data_paths"]

InputData = Union[str, os.PathLike, Iterable[Union[str, os.PathLike]]]
"""A trajectory file or directory, or a list of them."""

TRAJECTORY_FILE_PATTERN = "*.traj.npz|*.pkl"
"""The names of trajectory files (for messages): data-only files and (legacy or opt-in) pickles."""


def resolve_data_paths(input_data: InputData, base_dir: Optional[Union[str, os.PathLike]]) -> Union[str, list[str]]:
    """``input_data`` with relative paths taken from ``base_dir`` (None: as given) and ``~`` expanded.

    Args:
        input_data: A trajectory file or directory, or a list of them.
        base_dir: Where relative paths start, e.g. the directory ``maze-run`` was started in
            (a job runs in its run directory).
    """

    def resolve(path: Union[str, os.PathLike]) -> str:
        path = Path(path).expanduser()
        return str(path if path.is_absolute() or base_dir is None else Path(base_dir) / path)

    if isinstance(input_data, (str, os.PathLike)):
        return resolve(input_data)
    return [resolve(path) for path in input_data]


def find_trajectory_files(input_data: InputData) -> list[Path]:
    """Lists the trajectory files of ``input_data`` in a stable order.

    Args:
        input_data: A file or directory, or a list of them. A directory contributes every
            trajectory file below it (``*.traj.npz`` and ``*.pkl``, recursively, sorted by
            path); files are taken as given, in the given order.

    Raises:
        TrajectoryLoadError: A path does not exist, or no trajectory file is found at all.
    """
    entries = [input_data] if isinstance(input_data, (str, os.PathLike)) else list(input_data)
    files: list[Path] = []
    for entry in entries:
        path = Path(entry)
        if path.is_dir():
            found = {file for pattern in TRAJECTORY_FILE_PATTERNS for file in path.rglob(pattern) if file.is_file()}
            files.extend(sorted(found))
        elif path.is_file():
            files.append(path)
        else:
            raise TrajectoryLoadError(
                f"trajectory data {path} does not exist (expected a trajectory file or directory)"
            )
    if not files:
        raise TrajectoryLoadError(
            f"no trajectory files ({TRAJECTORY_FILE_PATTERN}) found in {[str(entry) for entry in entries]}; record "
            "some first, e.g. with a rollout (they land in trajectory_data/)"
        )
    return files


def load_trajectories(
    files: list[Path],
    conversion_env_factory: Optional[Callable[[], Any]],
    trajectory_processor: TrajectoryProcessor,
    n_workers: int,
    deserialize_in_main_thread: bool,
    safe: bool = True,
    trusted_modules: Sequence[str] = (),
    allocation_budget: Optional[int] = None,
) -> list[SpacesTrajectoryRecord]:
    """Loads, converts and processes every file; returns the episodes in file order.

    Args:
        files: The trajectory files.
        conversion_env_factory: Builds the env whose conversions turn recorded MazeStates
            into observations (each worker builds its own); None for spaces records.
        trajectory_processor: Applied to each converted episode.
        n_workers: Processes to use (at least 1); 1 does everything in this process.
        deserialize_in_main_thread: Do everything in this process whatever ``n_workers``
            says (for factories, processors or records that cannot be sent to worker
            processes, and for debugging).
        safe: Read files with the allow-listed unpickler (see :func:`load_trajectory`).
        trusted_modules: Modules whose classes the safe unpickler also loads.
        allocation_budget: Bytes loading one file may allocate (see :func:`load_trajectory`);
            None: 64 times the file's size plus 64 MiB.

    Raises:
        TrajectoryLoadError: A file is missing, truncated, corrupt or (safe mode) names a class
            outside the allow-list (the message names it).
        TrajectoryConversionError: A file's episode cannot be converted or processed (the
            message names it), or a worker process died.
        UntrustedTargetError: A run directory's config asks for ``safe=False`` or further
            ``trusted_modules`` (worker processes load without the caller's trusted scope).
    """
    check_trust_not_widened("loading trajectory files", safe=safe, trusted_modules=trusted_modules)
    if n_workers == 1 or len(files) == 1 or deserialize_in_main_thread:
        worker = _FileWorker(
            conversion_env_factory, trajectory_processor, safe, tuple(trusted_modules), allocation_budget
        )
        try:
            return [worker.load(path) for path in files]
        finally:
            worker.close()
    payload = cloudpickle.dumps(
        (conversion_env_factory, trajectory_processor, safe, tuple(trusted_modules), allocation_budget)
    )
    workers = min(n_workers, len(files))
    start_method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    check_main_guard(start_method, f"trajectory loading with n_workers={n_workers}", alternative="n_workers=1")
    try:
        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context(start_method),
            initializer=_init_worker,
            initargs=(payload,),
        ) as pool:
            results = pool.map(_load_in_worker, files, chunksize=max(1, len(files) // (4 * workers)))
            return [cloudpickle.loads(result) for result in results]
    except BrokenProcessPool as error:
        raise TrajectoryConversionError(
            f"a data loading worker process died while loading {len(files)} trajectory files ({error}); retry with "
            f"n_workers=1 to see the failing file.{reimport_note(start_method)}"
        ) from error


class _FileWorker:
    """Loads, converts and processes one file at a time with its own conversion env."""

    def __init__(
        self,
        conversion_env_factory: Optional[Callable[[], Any]],
        trajectory_processor: TrajectoryProcessor,
        safe: bool,
        trusted_modules: tuple[str, ...],
        allocation_budget: Optional[int] = None,
    ) -> None:
        self._allocation_budget = allocation_budget
        self._factory = conversion_env_factory
        self._processor = trajectory_processor
        self._safe = safe
        self._trusted_modules = trusted_modules
        self._env: Any = None

    def load(self, path: Path) -> SpacesTrajectoryRecord:
        """Returns the converted and processed episode of ``path``."""
        record = load_trajectory(
            path, safe=self._safe, trusted_modules=self._trusted_modules, allocation_budget=self._allocation_budget
        )
        env = self._conversion_env(record)
        try:
            converted = to_spaces_trajectory(record, env)
            processed = self._processor.process(converted)
        except MazeError as error:
            raise TrajectoryConversionError(f"trajectory file {path}: {error}") from error
        except Exception as error:
            raise TrajectoryConversionError(
                f"trajectory file {path} could not be converted or processed ({type(error).__name__}: {error})"
            ) from error
        if not isinstance(processed, SpacesTrajectoryRecord):
            raise TrajectoryConversionError(
                f"trajectory file {path}: {type(self._processor).__name__}.process returned a "
                f"{type(processed).__name__}, not a SpacesTrajectoryRecord"
            )
        return processed

    def close(self) -> None:
        """Closes the conversion env, if one was built."""
        if self._env is not None and hasattr(self._env, "close"):
            self._env.close()
        self._env = None

    def _conversion_env(self, record: TrajectoryRecord) -> Any:
        """The conversion env, built on first need (spaces records need none)."""
        if self._env is None and self._factory is not None and not isinstance(record, SpacesTrajectoryRecord):
            try:
                self._env = self._factory()
            except Exception as error:
                raise TrajectoryConversionError(
                    f"conversion_env_factory failed ({type(error).__name__}: {error}); it must build the env whose "
                    "conversions turn the recorded MazeStates into observations"
                ) from error
        return self._env


_worker: Optional[_FileWorker] = None
_worker_setup_error = ""


def _init_worker(payload: bytes) -> None:
    global _worker, _worker_setup_error
    try:
        _worker = _FileWorker(*cloudpickle.loads(payload))
    except Exception as error:  # reported with the first task instead of breaking the pool
        _worker_setup_error = f"{type(error).__name__}: {error}"


def _load_in_worker(path: Path) -> bytes:
    if _worker is None:
        raise TrajectoryConversionError(
            f"a data loading worker could not receive the conversion_env_factory and trajectory_processor "
            f"({_worker_setup_error}); define them in an importable module, or load with n_workers=1"
        )
    # Results travel back with cloudpickle, like the files they come from.
    return cloudpickle.dumps(_worker.load(path))
