"""Atomic file writes with ordinary permissions, shared by every package that writes run outputs.

A write goes to a temporary file in the target directory, is flushed to disk and renamed
over the target: a process killed (or a disk that fills up) mid-write keeps the previous
good file, and no half-written file ever carries the target's name (the temporary name says which
process writes it, so that a later run can delete a killed writer's leftover, see
:mod:`maze.env.utils.temp_files`). The finished file gets
the permissions a plain ``open(path, "w")`` would give (``0o666`` minus the umask), not the
``0o600`` of temporary files.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Union

from maze.env.utils.temp_files import in_progress, writer_tag

__all__ = ["atomic_write", "atomic_write_bytes", "default_file_mode", "fsync_directory", "write_new_file"]

PathType = Union[str, os.PathLike]


def default_file_mode() -> int:
    """The mode of a newly created file under the current umask (e.g. ``0o644`` for umask 022)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path: PathType, write: Callable[[BinaryIO], None], durable: bool = True) -> Path:
    """Creates or replaces ``path`` atomically with what ``write`` writes into a binary file.

    Args:
        path: The target file; its directory is created if missing.
        write: Writes the content into the given open binary file.
        durable: Flush the file to disk (``fsync``) before the rename, so it survives a
            power loss; bulk outputs such as trajectory files skip this cost.

    Returns:
        The target path.

    Raises:
        OSError: The directory cannot be written or the disk is full; the old file, if any,
            is untouched and no temporary file is left behind.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temp_name = tempfile.mkstemp(prefix=f".{path.name}.{writer_tag()}.", suffix=".tmp", dir=path.parent)
    try:
        with in_progress(temp_name):
            with os.fdopen(descriptor, "wb") as file:
                write(file)
                file.flush()
                if durable:
                    os.fsync(file.fileno())
            os.chmod(temp_name, default_file_mode())
            os.replace(temp_name, path)
    except OSError as error:
        Path(temp_name).unlink(missing_ok=True)
        if error.filename is None and error.errno is not None:  # e.g. a full disk (write/fsync): name the file
            raise OSError(error.errno, error.strerror, str(path)) from error
        raise
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return path


def atomic_write_bytes(path: PathType, payload: bytes) -> Path:
    """Creates or replaces ``path`` atomically with ``payload`` (see :func:`atomic_write`)."""
    return atomic_write(path, lambda file: file.write(payload))


def write_new_file(path: PathType, payload: bytes, durable: bool = True) -> Path:
    """Creates ``path`` (which must not exist) with ``payload``, flushed to disk: a file of a directory staged whole.

    For directories that are renamed into place as one unit (checkpoints, exports), whose
    files need no rename of their own; ``fsync`` the directory (:func:`fsync_directory`) before
    renaming it.

    Raises:
        OSError: It exists, the directory cannot be written or the disk is full (naming the file).
    """
    path = Path(path)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        view = memoryview(payload)
        while view:
            view = view[os.write(descriptor, view) :]
        if durable:
            os.fsync(descriptor)
    except OSError as error:
        if error.filename is None and error.errno is not None:
            raise OSError(error.errno, error.strerror, str(path)) from error
        raise
    finally:
        os.close(descriptor)
    return path


def fsync_directory(path: PathType) -> None:
    """Flushes a directory's entries (created, renamed or deleted names) to disk, where the platform allows it."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # e.g. Windows, where directories cannot be opened (nor need to be flushed)
        return
    try:
        os.fsync(descriptor)
    except OSError:  # some file systems refuse fsync on directories; their renames are durable anyway or never
        pass
    finally:
        os.close(descriptor)
