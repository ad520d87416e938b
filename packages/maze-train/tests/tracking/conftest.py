"""Shared runs of the tracking tests: one real ``mlflow server`` per session, one tracked PPO run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tracking_support import TINY_PPO, MlflowServer, TrackedJob, assert_success, maze_run


@pytest.fixture(scope="session")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MlflowServer]:
    """A real ``mlflow server`` on loopback, started once (a test that stops it gets it restarted)."""
    server = MlflowServer(tmp_path_factory.mktemp("mlflow_server"))
    server.ensure_running()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def tracked_run(tmp_path_factory: pytest.TempPathFactory) -> TrackedJob:
    """Two PPO epochs tracked by MLflow (default SQLite store) and W&B (offline) at once."""
    cwd = tmp_path_factory.mktemp("tracked")
    result = maze_run(
        *TINY_PPO, "algorithm.n_epochs=2", "logger=[mlflow,wandb]", "logger.mode=offline", "hydra.run.dir=run", cwd=cwd
    )
    assert_success(result)
    return TrackedJob(cwd, cwd / "run", result.stdout, result.stderr)
