"""Names of temporary files and directories that say who writes them, and the cleanup of stale ones.

Atomic writes (:mod:`maze.env.utils.files`, checkpoints, exports) stage their output under a
hidden name in the target directory and rename it into place when it is complete. A process
killed before the rename leaves the hidden entry behind. Such a name carries the writer's
process id and host (``.<base>.p<pid>@<host>.<token>.tmp``), so that the next process to
touch the directory can tell a leftover of a dead writer from the work of a live one:

* written on this host by a process that no longer runs (or by this process, but not by a
  write it has in progress): stale at once;
* written on another host, or under an older name without the writer: stale once it was not
  modified for :data:`STALE_AFTER_SECONDS`.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

__all__ = [
    "STALE_AFTER_SECONDS",
    "error_naming_target",
    "in_progress",
    "is_stale",
    "remove_stale_temps",
    "temp_name",
    "writer_tag",
]

STALE_AFTER_SECONDS = 3600.0
"""A temporary entry whose writer cannot be checked counts as stale after this long without a change."""

_WRITER = re.compile(r"\.p(?P<pid>\d+)@(?P<host>[A-Za-z0-9-]+)\.")
_TEMP = re.compile(r"^\..+\.(tmp|old)$")
_ACTIVE: set[str] = set()
"""The temporary paths this process is writing right now (see :func:`in_progress`)."""


def _host() -> str:
    """This host's name as it appears in temporary names (letters, digits and dashes; at most 32)."""
    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:32] or "host"


def writer_tag() -> str:
    """``p<pid>@<host>`` of this process, as it appears in its temporary names."""
    return f"p{os.getpid()}@{_host()}"


def temp_name(base: str, suffix: str = ".tmp") -> str:
    """A hidden, unique name for staging ``base``: ``.<base>.p<pid>@<host>.<token><suffix>``.

    Args:
        base: The name of what is staged (e.g. ``checkpoint-3``).
        suffix: ``.tmp`` for work in progress, ``.old`` for a replaced entry about to be deleted.
    """
    return f".{base}.{writer_tag()}.{secrets.token_hex(4)}{suffix}"


@contextmanager
def in_progress(path: os.PathLike) -> Iterator[None]:
    """Marks ``path`` as being written by this process, so that :func:`is_stale` keeps it meanwhile."""
    key = os.fspath(path)
    _ACTIVE.add(key)
    try:
        yield
    finally:
        _ACTIVE.discard(key)


def _process_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):  # another user's process (or no way to tell): assume it runs
        return True
    return True


def is_stale(path: Path, now: Optional[float] = None, max_age: float = STALE_AFTER_SECONDS) -> bool:
    """Whether the temporary entry ``path`` is a leftover that nobody will finish (see the module docs)."""
    match = _WRITER.search(path.name)
    if match is not None and match["host"] == _host():
        pid = int(match["pid"])
        if pid == os.getpid():
            return os.fspath(path) not in _ACTIVE
        if not _process_runs(pid):
            return True
    try:
        modified = path.lstat().st_mtime
    except FileNotFoundError:
        return False
    return (time.time() if now is None else now) - modified > max_age


def remove_stale_temps(directory: Path, prefix: str = "") -> list[Path]:
    """Deletes the stale hidden ``*.tmp``/``*.old`` entries (files or directories) of ``directory``.

    Best effort: an entry that cannot be deleted (e.g. a read-only directory) stays.

    Args:
        directory: Where to look (not recursively).
        prefix: Only names that start with ``.<prefix>`` (empty: every temporary name).

    Returns:
        What was deleted.
    """
    removed = []
    try:
        entries = list(directory.iterdir())
    except OSError:
        return removed
    for path in entries:
        if not (_TEMP.match(path.name) and path.name.startswith(f".{prefix}") and is_stale(path)):
            continue
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed


def error_naming_target(error: OSError, staging: Path, target: Path) -> OSError:
    """``error`` naming the path under ``target`` where it names one under the hidden ``staging`` (for messages).

    Example: an ``ENOSPC`` of ``<run>/.checkpoint-3.p12@host.ab.tmp/optimizer.pt`` names
    ``<run>/checkpoint-3/optimizer.pt``, the path the user knows. Other errors are returned as they are.
    """
    if error.filename is None:
        return error
    try:
        relative = Path(error.filename).relative_to(staging)
    except ValueError:
        return error
    return OSError(error.errno, error.strerror, str(target / relative))
