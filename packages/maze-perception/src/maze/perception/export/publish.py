"""Publishing a finished export so that its directory holds a loadable export at every instant.

An export directory (``<run dir>/onnx/``) holds ``metadata.json`` and the ONNX files it names.
The files of each export carry a version in their names (``policy_0.v3.onnx``), and
``metadata.json`` is the pointer to the current version: a new export

1. writes and checks its files in a hidden staging directory next to the export directory,
2. renames them into the export directory under the next version's names (the old metadata
   still names the old files, which stay),
3. replaces ``metadata.json`` atomically (the switch: a reader finds the old export or the new
   one, complete either way),
4. deletes the ONNX files the new metadata does not name (earlier versions, files of a killed
   export, an unversioned export of older maze versions) and stale temporary files.

A process killed at any step leaves a loadable export (the previous one until step 3, the new
one after it); what it leaves besides is deleted by the next export. Loaders need nothing
new: they read ``metadata.json`` and open the files it names, as for every export before.
Earlier maze versions swapped whole directories with two renames and could leave the previous
export in a hidden ``.onnx-old-*`` directory; the next export moves such an export back first.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from maze.env.agent.onnx_format import METADATA_FILE, previous_export_prefix
from maze.env.utils.files import atomic_write_bytes, default_file_mode, fsync_directory
from maze.env.utils.temp_files import is_stale, remove_stale_temps, temp_name

__all__ = ["clean_leftovers", "make_staging_directory", "next_version", "publish", "versioned_name"]

_VERSIONED = re.compile(r"^(?P<stem>.+)\.v(?P<version>\d+)\.onnx$")


def versioned_name(file_name: str, version: int) -> str:
    """``policy_0.onnx`` of export version 3 -> ``policy_0.v3.onnx``."""
    return f"{file_name.removesuffix('.onnx')}.v{version}.onnx"


def next_version(directory: Path) -> int:
    """One more than the highest version of the ONNX files in ``directory`` (1 for none)."""
    versions = [int(match["version"]) for path in _entries(directory) if (match := _VERSIONED.match(path.name))]
    return max(versions, default=0) + 1


def _entries(directory: Path) -> list[Path]:
    try:
        return list(directory.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []


def make_staging_directory(directory: Path) -> Path:
    """A new hidden directory next to ``directory`` to write an export into (with a plain ``mkdir``'s mode).

    Raises:
        OSError: The parent directory cannot be written (naming it, not the hidden name).
    """
    staging = directory.parent / temp_name(directory.name)
    mode = default_file_mode()
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(staging, mode | (mode & 0o444) >> 2)
    except OSError as error:  # name the directory the user knows, not the hidden name
        raise OSError(error.errno, error.strerror, str(directory.parent)) from error
    return staging


def clean_leftovers(directory: Path) -> None:
    """Restores an export that an older maze's interrupted swap hid, and deletes stale staging directories.

    An older maze moved the previous export into ``.<name>-old-*/<name>`` before renaming the
    new one into place; killed in between, it left no ``<name>``. Best effort: what cannot be
    moved or deleted stays.
    """
    parent = directory.parent
    hidden = [path for path in _entries(parent) if path.name.startswith(f".{directory.name}-")]
    previous_exports = sorted(
        (path for path in hidden if path.name.startswith(previous_export_prefix(directory.name))),
        key=_modified,
        reverse=True,
    )
    for path in previous_exports:  # the newest first: it held the export that was replaced last
        previous = path / directory.name
        if not directory.exists() and (previous / METADATA_FILE).is_file():
            try:
                os.replace(previous, directory)
            except OSError:
                continue
        shutil.rmtree(path, ignore_errors=True)
    for path in hidden:  # an older maze's staging directories (``.<name>-<random>``): by age only
        if path not in previous_exports and path.is_dir() and is_stale(path):
            shutil.rmtree(path, ignore_errors=True)
    remove_stale_temps(parent, prefix=directory.name)


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def publish(staging: Path, directory: Path, data: dict[str, Any], metadata_file: str) -> None:
    """Moves the files of a finished export from ``staging`` into ``directory`` and switches ``metadata_file`` to them.

    Args:
        staging: Holds the export's ONNX files, named as ``data["networks"][*]["file"]``.
        directory: The export directory (created if missing).
        data: The export's metadata (its file names are replaced by the versioned ones).
        metadata_file: The name of the metadata file (``metadata.json``).

    Raises:
        OSError: A file cannot be moved or written (naming it); the previous export stays loadable.
    """
    directory.mkdir(parents=True, exist_ok=True)
    version = next_version(directory)
    data = copy.deepcopy(data)
    for entry in data["networks"]:
        name = versioned_name(entry["file"], version)
        os.replace(staging / entry["file"], directory / name)
        entry["file"] = name
    fsync_directory(directory)
    atomic_write_bytes(directory / metadata_file, json.dumps(data, indent=2).encode("utf-8"))
    fsync_directory(directory)
    current = {entry["file"] for entry in data["networks"]}
    for path in _entries(directory):
        if path.suffix == ".onnx" and path.name not in current and path.is_file():
            path.unlink(missing_ok=True)
    remove_stale_temps(directory)  # e.g. the metadata's temporary file of a killed export
