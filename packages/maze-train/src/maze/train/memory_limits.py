"""Upper bounds of settings that allocate memory: checked against the machine before allocating.

A size far beyond the machine (a noise table of 1e13 floats, a replay buffer of 1e12
transitions) must not end in a numpy traceback, an OOM kill or a full ``/dev/shm`` that
starves other processes on a shared host. :func:`check_allocation` refuses such a size with
one :class:`ConfigurationError` naming the setting, the bytes it needs and the limit: the
machine's total RAM, or for POSIX shared memory the space left in ``/dev/shm``.
"""

from __future__ import annotations

import os
from typing import Optional

from maze.env.errors import ConfigurationError

__all__ = ["check_allocation", "format_bytes", "physical_memory", "shared_memory_free"]

SHARED_MEMORY_DIR = "/dev/shm"
"""Where Linux keeps POSIX shared memory (RAM-backed)."""


def physical_memory() -> Optional[int]:
    """The machine's total RAM in bytes (None where the platform cannot tell)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def shared_memory_free() -> Optional[int]:
    """Bytes left in ``/dev/shm`` (None where there is no such file system)."""
    try:
        stats = os.statvfs(SHARED_MEMORY_DIR)
    except (AttributeError, OSError):
        return None
    return stats.f_bavail * stats.f_frsize


def format_bytes(count: float) -> str:
    """E.g. ``40.0 TB`` or ``512 B`` (decimal units)."""
    units = ("B", "kB", "MB", "GB", "TB", "PB")
    exponent = 0
    while abs(count) >= 1000 and exponent < len(units) - 1:
        count /= 1000
        exponent += 1
    return f"{count:.0f} B" if exponent == 0 else f"{count:.1f} {units[exponent]}"


def check_allocation(key: str, amount: str, needed: int, what: str, shared: bool = False) -> None:
    """Raises if allocating ``needed`` bytes, sized by the setting ``key``, cannot fit the machine.

    Args:
        key: The config key that sets the size (e.g. ``runner.shared_noise_table_size``).
        amount: What the size amounts to, for the message (e.g. ``100000 float32 values``).
        needed: Bytes the allocation takes.
        what: What is allocated, for the message (e.g. ``the shared noise table``).
        shared: POSIX shared memory (limit: free space in ``/dev/shm``, else the total RAM).

    Raises:
        ConfigurationError: Naming the key, the bytes needed and the limit.
    """
    free_shared = shared_memory_free() if shared else None
    limit, kind = (
        (free_shared, f"free in {SHARED_MEMORY_DIR}") if free_shared is not None else (physical_memory(), "RAM")
    )
    if limit is None or needed <= limit:
        return
    raise ConfigurationError(
        f"{key}: {amount} need {format_bytes(needed)} for {what}, but this machine has {format_bytes(limit)} {kind}; "
        f"lower {key}"
    )
