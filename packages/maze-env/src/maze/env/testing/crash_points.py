"""Kill a process between any two file-system operations of an action, to test what it leaves on disk.

:func:`count_operations` runs an action in a forked child and counts the file-system calls it
makes (:data:`OPERATIONS` of the ``os`` module: creating, writing, flushing, renaming and
deleting files and directories; ``shutil.rmtree`` and ``pathlib`` go through them).
:func:`run_killed_before` runs it again in a fresh child that ends with ``os._exit`` right
before its n-th call: no ``finally`` block, no exception handler and no cleanup runs, as after a
SIGKILL. A test calls it for every n from 1 to the count and checks after each that the disk
holds a consistent state::

    for n in range(1, count_operations(save) + 1):
        assert run_killed_before(save, n)
        check_what_is_on_disk()

Needs ``os.fork`` (Linux, macOS); data written but not flushed is not lost (the kernel keeps
it), so this tests kills of the process, not power loss.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Optional

__all__ = ["OPERATIONS", "count_operations", "fork_available", "run_killed_before"]

OPERATIONS = ("mkdir", "open", "write", "fsync", "replace", "rename", "unlink", "rmdir", "symlink", "truncate")
"""The ``os`` functions counted as file-system operations."""

_KILLED = 77
_FAILED = 78


def fork_available() -> bool:
    """Whether this platform can fork (the functions here need it)."""
    return hasattr(os, "fork")


@contextmanager
def _intercepted(limit: Optional[int], counter: list[int]) -> Iterator[None]:
    """Counts the calls of :data:`OPERATIONS`; ends the process before call number ``limit``."""
    originals = {name: getattr(os, name) for name in OPERATIONS if hasattr(os, name)}

    def wrap(function: Callable[..., Any]) -> Callable[..., Any]:
        def intercepted(*args: Any, **kwargs: Any) -> Any:
            counter[0] += 1
            if limit is not None and counter[0] >= limit:
                os._exit(_KILLED)
            return function(*args, **kwargs)

        return intercepted

    for name, function in originals.items():
        setattr(os, name, wrap(function))
    try:
        yield
    finally:
        for name, function in originals.items():
            setattr(os, name, function)


def _in_child(action: Callable[[], Any], limit: Optional[int]) -> tuple[int, int]:
    """Runs ``action`` in a forked child; returns its exit code and (without ``limit``) the operations it made."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        os.close(read_end)
        counter = [0]
        code = 0
        try:
            with _intercepted(limit, counter):
                action()
        except BaseException:  # noqa: BLE001 (reported as an exit code)
            import traceback

            traceback.print_exc()
            code = _FAILED
        os.write(write_end, str(counter[0]).encode())
        os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        reported = pipe.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), int(reported or 0)


def count_operations(action: Callable[[], Any]) -> int:
    """The file-system operations ``action`` makes (run in a forked child, so this process's disk state is its own).

    Raises:
        AssertionError: The action failed in the child (its traceback is printed).
    """
    code, count = _in_child(action, None)
    if code != 0:
        raise AssertionError(f"the action failed in the child process (exit code {code})")
    return count


def run_killed_before(action: Callable[[], Any], operation: int) -> bool:
    """Runs ``action`` in a forked child that dies right before its ``operation``-th file-system operation.

    Returns:
        True if the child was killed, False if the action finished with fewer operations.

    Raises:
        AssertionError: The action failed in the child before that (its traceback is printed).
    """
    code, _ = _in_child(action, operation)
    if code not in (0, _KILLED):
        raise AssertionError(f"the action failed in the child process (exit code {code})")
    return code == _KILLED
