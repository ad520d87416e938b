"""Pytest plugin of the ``ray`` nox session: a local 2-CPU Ray and a simulated two-node cluster, started once each.

Ray's start-up costs tens of seconds on a 2-core machine, so every test of the ``ray`` nox
session shares them: the Ray folders of maze-rollout (here) and of maze-rl run in one pytest
call, and the conftest.py of each names this module in ``pytest_plugins`` (pytest registers it
once, so its session fixtures exist once):

* ``ray_local``: the process is connected to a local Ray with 2 CPUs. Runners given no
  ``ray_address`` find the connection and use it (they neither start nor stop Ray).
* ``ray_cluster``: the process is connected to a ``ray.cluster_utils.Cluster`` of a head node
  and one worker node (1 CPU each, so two 1-CPU actors land on different nodes); the
  fixture's value is the cluster. A test may disconnect (``ray.shutdown()``) to let a runner
  connect by ``ray_address=cluster.address`` as users do (e.g. with a job ``runtime_env``);
  the cluster keeps running and the next test is connected again.

A process connects to one Ray at a time: the tests that use ``ray_cluster`` run after all
others (see :func:`pytest_collection_modifyitems`), so each Ray starts once. At the end of
the session both are shut down and no process of theirs may be left (checked from
``/proc``: every Ray process of the session names its temporary directory).

``user_module``: a user's own env package, importable in the test process only, which a
job on the cluster ships to the worker node by its ``runtime_env``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
import ray
from ray.cluster_utils import Cluster

RAY_CPUS = 2
"""CPUs of the local Ray (the CI machines have 2 cores)."""

USER_MODULE = "my_maze_project"
"""The user's own package (written into a temporary directory; on the driver's ``sys.path`` only)."""


class RayConnections:
    """Starts the local Ray or the cluster on first use and switches the process's connection between them.

    Args:
        temp_dir: Ray's temporary directory for this session (short: Ray's socket paths live below it).
    """

    def __init__(self, temp_dir: Path) -> None:
        self.temp_dir = temp_dir
        self.cluster: Optional[Cluster] = None
        self.connected_to: Optional[str] = None

    def local(self) -> Any:
        """Connects to the local Ray (started now if it is not running); returns the ``ray`` module."""
        if self.connected_to != "local":
            self._disconnect()
            ray.init(num_cpus=RAY_CPUS, include_dashboard=False, _temp_dir=str(self.temp_dir))
            self.connected_to = "local"
        return ray

    def two_nodes(self) -> Cluster:
        """Connects to the simulated two-node cluster (started now unless it runs); returns it."""
        if self.connected_to == "cluster" and not ray.is_initialized():  # a runner connected and disconnected
            ray.init(address=self.cluster.address)
        if self.connected_to != "cluster":
            self._disconnect()
            self.cluster = Cluster()  # kept before its nodes start, so that close() stops a half-started cluster
            for _ in range(2):  # the head node, then the second node
                self.cluster.add_node(num_cpus=1, temp_dir=str(self.temp_dir))
            ray.init(address=self.cluster.address)
            self.cluster.wait_for_nodes()
            self.connected_to = "cluster"
        return self.cluster

    def _disconnect(self) -> None:
        if ray.is_initialized():
            ray.shutdown()  # also stops a local Ray this process started
        if self.cluster is not None:
            self.cluster.shutdown()
            self.cluster = None
        self.connected_to = None

    def close(self) -> None:
        """Stops everything and fails if a Ray process of the session is still alive."""
        self._disconnect()
        leftovers = _processes_naming(str(self.temp_dir))
        deadline = time.monotonic() + 30
        while leftovers and time.monotonic() < deadline:
            time.sleep(0.5)
            leftovers = _processes_naming(str(self.temp_dir))
        assert not leftovers, f"Ray processes outlived the tests: {leftovers}"


def _processes_naming(text: str) -> list[str]:
    """``pid: command line`` of the live processes whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().split(") ", 1)[1][0]
        except OSError:
            continue
        if text in command and state != "Z":
            found.append(f"{entry.name}: {command[:120]}")
    return found


@pytest.fixture(scope="session")
def ray_connections() -> Iterator[RayConnections]:
    """The session's Ray connections (see the module docs)."""
    temp_dir = Path(tempfile.mkdtemp(prefix="maze-ray-", dir="/tmp"))
    # A Cluster writes its address into Ray's default directory (``$RAY_TMPDIR/ray``, else /tmp/ray), which it
    # does not create: on a machine that never ran Ray it fails. Point it into this session's directory.
    (temp_dir / "ray").mkdir()
    connections = RayConnections(temp_dir)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RAY_TMPDIR", str(temp_dir))
            yield connections
            connections.close()
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.fixture
def ray_local(ray_connections: RayConnections) -> Any:
    """The ``ray`` module, connected to the session's local 2-CPU Ray."""
    return ray_connections.local()


@pytest.fixture
def ray_cluster(ray_connections: RayConnections) -> Cluster:
    """The session's simulated two-node cluster, connected."""
    return ray_connections.two_nodes()


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The directory of the user's package ``my_maze_project`` with an env factory, importable here only."""
    package = tmp_path / "user_code" / USER_MODULE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        textwrap.dedent(
            '''
            """A user's project: its env factory."""
            from maze.env.gym_adapter.gym_maze_env import GymMazeEnv


            def make_env(name: str, render_mode=None) -> GymMazeEnv:
                return GymMazeEnv(name, render_mode=render_mode)
            '''
        )
    )
    monkeypatch.syspath_prepend(str(package.parent))
    return package


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Runs the tests of the simulated cluster last, so that each Ray starts once per session."""
    items.sort(key=lambda item: "ray_cluster" in getattr(item, "fixturenames", ()))
