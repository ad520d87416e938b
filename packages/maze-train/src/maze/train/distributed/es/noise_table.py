"""SharedNoiseTable: one block of seeded Gaussian noise that all ES workers read without copying it."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from multiprocessing import shared_memory
from typing import Any, Optional

import numpy as np
from maze.env.errors import ConfigurationError
from maze.train.memory_limits import check_allocation

__all__ = ["SharedNoiseTable", "DEFAULT_NOISE_SEED"]

DEFAULT_NOISE_SEED = 123
"""Seed of the noise table when none is given (all runs share one table by default)."""

CHUNK = 1 << 24
"""Values per independently seeded chunk of a larger table (filled in parallel); a table of at most this many
values is a single stream of ``seed``."""


class SharedNoiseTable:
    """A fixed-length vector of deterministically generated standard-normal float32 numbers.

    ES perturbs the policy parameters with slices of this table, so a perturbation is sent
    between processes as a single index. The table lives in POSIX shared memory
    (``/dev/shm``): worker processes receive a handle when the table is pickled (to start
    them) and map the same pages, so with any number of workers the table exists once in
    memory. The same ``seed`` and ``count`` always give the same table: up to :data:`CHUNK`
    values one generator seeded with ``seed`` fills it; a larger table is generated in chunks
    of :data:`CHUNK` values, each from its own child of ``seed`` (numpy's
    ``SeedSequence.spawn``), by one thread per CPU (numpy releases the GIL while it fills: the
    default 1e8 values take 0.9 s instead of 1.7 s on 2 cores).

    The process that built the table owns it and frees it in :meth:`close` (also when it is
    garbage-collected, and, if it dies, Python's resource tracker removes it).

    Args:
        count: Number of float32 values (at most what ``/dev/shm`` has free) (the documented default of ``shared_noise_table_size``
            is 1e8, 400 MB; tests use far smaller tables).
        seed: Seed of the generators (numpy's default PCG64).

    Attributes:
        noise: ``[count]`` float32 view of the shared block (read-only in workers).

    Raises:
        ConfigurationError: For a count below 1 or beyond the free shared memory.
    """

    def __init__(self, count: int, seed: Optional[int] = None) -> None:
        if int(count) < 1:
            raise ConfigurationError(f"shared_noise_table_size must be at least 1, got {count}")
        self.count = int(count)
        check_allocation(
            "runner.shared_noise_table_size",
            f"{self.count} float32 values",
            self.count * 4,
            "the shared noise table",
            shared=True,
        )
        self.seed = DEFAULT_NOISE_SEED if seed is None else int(seed)
        self._memory = shared_memory.SharedMemory(create=True, size=self.count * 4)
        self._owner = True
        self._name = self._memory.name
        self.noise = np.ndarray((self.count,), dtype=np.float32, buffer=self._memory.buf)
        _fill_standard_normal(self.noise, self.seed)

    @property
    def name(self) -> str:
        """The name of the shared memory block (``/dev/shm/<name>`` on Linux)."""
        return self._name

    def get(self, index: int, dim: int) -> np.ndarray:
        """The ``[dim]`` slice starting at ``index`` (a view, no copy)."""
        return self.noise[index : index + dim]

    def sample_index(self, rng: np.random.Generator, dim: int) -> int:
        """A random start index of a ``dim``-long slice.

        Raises:
            ConfigurationError: If the table is shorter than ``dim``.
        """
        if dim > self.count:
            raise ConfigurationError(
                f"the shared noise table holds {self.count} values, fewer than the {dim} policy parameters; "
                f"set runner.shared_noise_table_size to at least {dim} (better 100x more)"
            )
        return int(rng.integers(0, self.count - dim + 1))

    def close(self) -> None:
        """Unmaps the table; the owner also frees the shared block."""
        memory = getattr(self, "_memory", None)
        if memory is None:
            return
        self._memory = None
        self.noise = np.empty(0, dtype=np.float32)
        try:
            memory.close()
        except BufferError:  # views handed out by get() are alive: the mapping goes with the last one
            pass
        if self._owner:
            memory.unlink()

    def __getstate__(self) -> dict[str, Any]:
        return {"count": self.count, "seed": self.seed, "name": self.name}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.count, self.seed = state["count"], state["seed"]
        self._memory = shared_memory.SharedMemory(name=state["name"])
        self._owner = False
        self._name = state["name"]
        noise = np.ndarray((self.count,), dtype=np.float32, buffer=self._memory.buf)
        noise.flags.writeable = False
        self.noise = noise

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the resource tracker frees the block
            pass


def _fill_standard_normal(noise: np.ndarray, seed: int) -> None:
    """Fills ``noise`` (``[count]`` float32) with standard-normal values (see :class:`SharedNoiseTable`)."""
    if len(noise) <= CHUNK:
        np.random.default_rng(seed).standard_normal(dtype=np.float32, out=noise)
        return
    seeds = np.random.SeedSequence(seed).spawn(-(-len(noise) // CHUNK))

    def fill(chunk: int) -> None:
        out = noise[chunk * CHUNK : (chunk + 1) * CHUNK]
        np.random.default_rng(seeds[chunk]).standard_normal(dtype=np.float32, out=out)

    with ThreadPoolExecutor(max_workers=min(len(seeds), os.cpu_count() or 1)) as pool:
        list(pool.map(fill, range(len(seeds))))
