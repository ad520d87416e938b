"""Helpers of the tracking tests: tiny ``maze-run`` jobs, a real ``mlflow server`` and W&B offline history."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

TINY_PPO = (
    "-cn",
    "conf_train",
    "env.name=CartPole-v1",
    "algorithm=ppo",
    "model=vector_obs",
    "critic=template_state",
    "runner=dev",
    "runner.concurrency=2",
    "algorithm.epoch_length=2",
    "algorithm.n_rollout_steps=20",
    "algorithm.rollout_evaluator.n_episodes=2",
    "seeding.env_base_seed=0",
    "seeding.agent_base_seed=0",
)
"""PPO on CartPole-v1 with epochs of 80 env steps (2 envs x 20 steps x 2 updates); add the epochs."""

STEPS_PER_EPOCH = 80

EVAL_MEAN = "eval_BaseEnvEvents/reward/mean"
TRAIN_MEAN = "train_BaseEnvEvents/reward/mean"
TRAIN_LEARNING_RATE = "train_ActorCriticEvents/learning_rate"
"""Written every epoch (an epoch in which no training episode ends has no TRAIN_MEAN)."""
WARNING = "Warning: MLflow tracking failed"


def executable(name: str) -> str:
    """A console script installed next to this interpreter (else on PATH)."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert found, f"the {name} console script is not installed"
    return found


def job_env() -> dict[str, str]:
    """The environment of a ``maze-run`` subprocess: one thread, no display, unbuffered, no W&B network."""
    env = {key: value for key, value in os.environ.items() if key != "HYDRA_FULL_ERROR"}
    env.update(OMP_NUM_THREADS="1", MPLBACKEND="Agg", PYTHONUNBUFFERED="1", WANDB_MODE="offline")
    return env


def default_ctrl_c() -> None:
    """Gives a child process the default Ctrl-C handling (as ``preexec_fn``), also where the tests run with SIGINT ignored.

    A job a non-interactive shell starts in the background (``nox ... &``, as CI scripts may)
    inherits an ignored SIGINT, and Python then keeps ignoring it: Ctrl-C would not reach maze-run.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def maze_run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Runs ``maze-run`` in ``cwd`` and returns the finished process with its output."""
    command = [executable("maze-run"), *args]
    return subprocess.run(command, cwd=cwd, env=job_env(), capture_output=True, text=True, timeout=600)


def assert_success(result: subprocess.CompletedProcess) -> None:
    """Fails with the output's tail unless the job exited with 0."""
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def sqlite_uri(directory: Path) -> str:
    """The default tracking URI of runs started in ``directory``: ``sqlite:///<directory>/outputs/mlflow.db``."""
    return f"sqlite:///{directory / 'outputs' / 'mlflow.db'}"


@dataclass(frozen=True)
class TrackedJob:
    """A finished ``maze-run`` job: where it started, its run directory and its output."""

    cwd: Path
    run_dir: Path
    stdout: str
    stderr: str

    @property
    def tracking_uri(self) -> str:
        """The default MLflow store of the job (``sqlite:///<cwd>/outputs/mlflow.db``)."""
        return sqlite_uri(self.cwd)


class MlflowServer:
    """A real ``mlflow server`` on loopback with a SQLite store and proxied artifacts in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = 0
        self.process: Optional[subprocess.Popen] = None

    @property
    def uri(self) -> str:
        """The tracking URI, ``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    def ensure_running(self) -> str:
        """Starts the server unless it runs; returns its URI once it answers ``/health``."""
        if self.process is not None and self.process.poll() is None:
            return self.uri
        self.port = _free_port()
        command = [
            executable("mlflow"), "server", "--host", "127.0.0.1", "--port", str(self.port), "--workers", "1",
            "--backend-store-uri", f"sqlite:///{self.directory / 'server.db'}",
            "--artifacts-destination", str(self.directory / "artifacts"),
        ]  # fmt: skip
        env = {**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}
        log = open(self.directory / f"server-{self.port}.log", "wb")  # noqa: SIM115 - kept open for the server
        self.process = subprocess.Popen(
            command, cwd=self.directory, env=env, stdout=log, stderr=log, start_new_session=True
        )
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (self.directory / f"server-{self.port}.log").read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"{self.uri}/health", timeout=2) as response:
                    if response.status == 200:
                        return self.uri
            except OSError:
                time.sleep(0.3)
        raise AssertionError(f"mlflow server on port {self.port} did not answer within 180 s")

    def stop(self) -> None:
        """Stops the server and every process it started (its own process group)."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def metric_histories(client: Any, run_id: str) -> dict[str, list[tuple[int, float]]]:
    """Every metric of an MLflow run as ``(step, value)`` pairs sorted by step."""
    run = client.get_run(run_id)
    return {
        key: sorted((metric.step, metric.value) for metric in client.get_metric_history(run_id, key))
        for key in run.data.metrics
    }


def wandb_history(run_dir: Path) -> list[dict[str, Any]]:
    """The history rows of the W&B offline run in ``run_dir/wandb`` (read from its ``.wandb`` log).

    The file is a LevelDB-style log (32 KiB blocks of records with a 7-byte header: checksum,
    length, type FULL/FIRST/MIDDLE/LAST) after a 7-byte W&B header; each record is a
    ``wandb_internal_pb2.Record``.
    """
    import json

    from wandb.proto import wandb_internal_pb2

    (path,) = run_dir.glob("wandb/offline-run-*/run-*.wandb")
    data = path.read_bytes()
    block, position, pieces, rows = 32768, 7, b"", []
    while position + 7 <= len(data):
        left = block - position % block
        if left < 7:
            position += left
            continue
        _, length, kind = struct.unpack("<IHB", data[position : position + 7])
        if length == 0 and kind == 0:
            position += left
            continue
        payload = data[position + 7 : position + 7 + length]
        position += 7 + length
        pieces = payload if kind in (1, 2) else pieces + payload
        if kind not in (1, 4):
            continue
        record = wandb_internal_pb2.Record()
        record.ParseFromString(pieces)
        if record.WhichOneof("record_type") == "history":
            rows.append(
                {item.key or "/".join(item.nested_key): json.loads(item.value_json) for item in record.history.item}
            )
    return rows
