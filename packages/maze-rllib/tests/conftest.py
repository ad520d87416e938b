"""One local 2-CPU Ray for the whole test session, started with maze's RayCluster; runners reuse the connection.

RLlib's algorithms connect to the process's Ray; a runner given no ``ray_address`` finds the
connection and neither starts nor stops Ray (see :class:`maze.rollout.ray_cluster.RayCluster`).
The jobs are composed in the test process by ray_runs.py, and run as ``maze-run`` subprocesses by
run_output.py, the helpers of maze-rl's Ray tests (packages/maze-rl/tests/ray, put on the import path here).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from maze.env.utils.library_output import show_library_output
from maze.rollout.ray_cluster import RayCluster

show_library_output(force=True)  # maze's library lines on stdout, as maze-run shows them (tests read them there)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "maze-rl" / "tests" / "ray"))  # ray_runs, run_output

RAY_CPUS = 2
"""CPUs of the local Ray (the CI machines have 2 cores)."""


@pytest.fixture(scope="session")
def ray_session() -> Iterator[Any]:
    """The ``ray`` module, connected to a local Ray started once for the session (and stopped after it)."""
    temp_dir = tempfile.mkdtemp(prefix="maze-rllib-", dir="/tmp")  # short: Ray's socket paths live below it
    cluster = RayCluster(init={"num_cpus": RAY_CPUS, "_temp_dir": temp_dir}, component="maze-rllib tests")
    try:
        with cluster.connected() as ray:
            yield ray
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
