"""Runs ``maze-run`` in a subprocess with a Ray of its own and finds the alarming lines of its output.

Shared by the ``ray`` and ``rllib`` sessions (maze-rllib's tests/conftest.py puts this directory on the import path).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ALARMING_LINE = re.compile(
    r"\b(?:WARNING|WARN|ERROR|CRITICAL|FATAL)\b"  # Python logging (Ray, RLlib, Hydra) and gymnasium's warnings
    r"|\w*Warning:"  # the warnings module (UserWarning:, DeprecationWarning:, ...)
    r"|^\[[^\]]*\s[EWF]\s+\d+\s+\d+\]"  # Ray's C++ log lines: [<time> E <pid> <tid>] core_worker.cc:...
)
"""A line at warning level or above, in the formats of the libraries a maze run prints through."""


def alarming_lines(output: str) -> list[str]:
    """The lines of ``output`` at warning level or above."""
    return [line for line in output.splitlines() if ALARMING_LINE.search(line)]


def run_maze(
    config_name: str, overrides: tuple[str, ...], cwd: Path, timeout: float = 400
) -> subprocess.CompletedProcess:
    """Runs ``maze-run -cn config_name overrides`` in ``cwd``; it starts (and stops) a local Ray of 2 CPUs itself.

    The process gets neither ``RAY_ADDRESS`` nor ``RAY_AUTH_MODE``, as on a user's machine.
    """
    result = maze_run(config_name, (*overrides, "runner.ray_init={num_cpus: 2}"), cwd, timeout=timeout)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def maze_run(
    config_name: str, overrides: tuple[str, ...], cwd: Path, timeout: float = 400, **environment: str
) -> subprocess.CompletedProcess:
    """Runs ``maze-run -cn config_name overrides`` in ``cwd`` and returns it, whatever its exit code.

    The process gets ``environment`` but neither ``RAY_ADDRESS`` nor ``RAY_AUTH_MODE`` of the tests' own.
    """
    executable = shutil.which("maze-run", path=str(Path(sys.executable).parent))
    assert executable, "the maze-run console script is not installed"
    variables = {key: value for key, value in os.environ.items() if key not in ("RAY_ADDRESS", "RAY_AUTH_MODE")}
    variables.update(OMP_NUM_THREADS="1", RAY_USAGE_STATS_ENABLED="0", **environment)
    command = [executable, "-cn", config_name, *overrides, "hydra.run.dir=run"]
    return subprocess.run(command, cwd=cwd, env=variables, capture_output=True, text=True, timeout=timeout)
