"""How many CPU threads torch (and the math libraries of env workers) may use per process.

torch's default, one intra-op thread per core, pays off for large models only. For the small
models of most structured envs it fights the env loop, the env worker processes and anything
else running on the machine: on a busy 2-core machine one PPO epoch took about twice as long
with the default as with one thread. Training runners therefore default to
``runner.cpu_threads: 1``; raise it for large models (e.g. CNNs) on an otherwise idle machine,
or set ``null`` to keep torch's default.
"""

from __future__ import annotations

import os
from typing import Optional

import torch
from maze.env.errors import ConfigurationError

__all__ = ["THREAD_VARIABLES", "apply_cpu_threads"]

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
"""Environment variables that bound the threads of torch and numpy's math libraries in new processes."""


def apply_cpu_threads(threads: Optional[int]) -> None:
    """Limits this process and the processes it starts afterwards to ``threads`` intra-op threads.

    Sets ``torch.set_num_threads`` here and the :data:`THREAD_VARIABLES` in the environment,
    which env worker processes (started later) inherit before they import torch or numpy.

    Args:
        threads: Threads per process (at least 1), or None to change nothing.

    Raises:
        ConfigurationError: For a value that is not a positive integer.
    """
    if threads is None:
        return
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ConfigurationError(
            f"runner.cpu_threads must be a positive integer (or null for torch's default), got {threads!r}"
        )
    torch.set_num_threads(threads)
    for variable in THREAD_VARIABLES:
        os.environ[variable] = str(threads)
