"""Converts pickle trajectory files into the data-only format: ``python -m maze.rollout.convert <dir>``.

Every ``*.pkl`` file below the given directories (or each given file) is loaded with the
allow-listed, allocation-bounded unpickler (``load_trajectory``) and written next to it as
``<episode id>.traj.npz``. The originals stay unless ``--delete-originals`` is given (then a
file is deleted only after its converted file has been written and read back equal in length).
A file that fails is reported and skipped; the exit status is 1 if any failed.

Example::

    python -m maze.rollout.convert outputs/rollout/trajectory_data --trusted-module my_env
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from maze.env.errors import MazeError
from maze.env.trajectory_recording.trajectory_files import (
    PICKLE_SUFFIX,
    TrajectoryWriterFile,
    episode_id_of,
    load_trajectory,
)

__all__ = ["ConversionReport", "convert_trajectories", "main"]


@dataclass
class ConversionReport:
    """What :func:`convert_trajectories` did.

    Attributes:
        converted: ``(pickle file, data-only file)`` pairs written.
        failed: ``(pickle file, message)`` pairs of files that could not be converted.
    """

    converted: list[tuple[Path, Path]] = field(default_factory=list)
    failed: list[tuple[Path, str]] = field(default_factory=list)


def _pickle_files(paths: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(file for file in path.rglob(f"*{PICKLE_SUFFIX}") if file.is_file()))
        else:
            files.append(path)
    return files


def convert_trajectories(
    paths: Sequence[Path],
    trusted_modules: Sequence[str] = (),
    delete_originals: bool = False,
    allocation_budget: Optional[int] = None,
) -> ConversionReport:
    """Converts the pickle trajectory files of ``paths`` (files, or directories searched recursively).

    Args:
        paths: Pickle files and directories.
        trusted_modules: Modules whose classes the loader may rebuild (your env's states and actions).
        delete_originals: Delete each pickle once its data-only file is written and reads back.
        allocation_budget: Passed to ``load_trajectory`` for each pickle.

    Returns:
        The files converted and those that failed (with the reason).
    """
    report = ConversionReport()
    for pickle_file in _pickle_files(paths):
        try:
            record = load_trajectory(pickle_file, trusted_modules=trusted_modules, allocation_budget=allocation_budget)
            writer = TrajectoryWriterFile(pickle_file.parent)
            if str(record.id) != episode_id_of(pickle_file):
                record.id = episode_id_of(pickle_file)  # the file name is the episode's name in the directory
            writer.write(record)
            target = writer.path_of(record)
            if len(load_trajectory(target, trusted_modules=trusted_modules)) != len(record):
                raise MazeError(f"{target} does not read back as written")
        except (MazeError, ValueError, TypeError, OSError) as error:
            report.failed.append((pickle_file, str(error)))
            continue
        report.converted.append((pickle_file, target))
        if delete_originals:
            pickle_file.unlink()
    return report


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line (see the module doc); returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m maze.rollout.convert",
        description="Convert pickle trajectory files (*.pkl) into the data-only format (*.traj.npz).",
    )
    parser.add_argument("paths", nargs="+", type=Path, help="trajectory directories (searched recursively) or files")
    parser.add_argument(
        "--trusted-module", action="append", default=[], help="module whose classes may be loaded (repeatable)"
    )
    parser.add_argument("--delete-originals", action="store_true", help="delete each pickle once converted")
    parser.add_argument("--allocation-budget", type=int, default=None, help="bytes loading one file may allocate")
    args = parser.parse_args(argv)
    missing = [str(path) for path in args.paths if not path.exists()]
    if missing:
        print(f"Error: {', '.join(missing)} does not exist", file=sys.stderr)
        return 2
    report = convert_trajectories(args.paths, args.trusted_module, args.delete_originals, args.allocation_budget)
    for source, message in report.failed:
        print(f"Error: {source}: {message}", file=sys.stderr)
    deleted = " (originals deleted)" if args.delete_originals else ""
    print(f"Converted {len(report.converted)} trajectory files{deleted}; {len(report.failed)} failed.")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
