"""TrackingWriter: a statistics writer that hands a training run to MLflow or W&B in a tracking process.

The writer is what the training process holds; the tracking library runs in a child
process (:mod:`maze.train.tracking.worker`) fed through a pipe, so that neither its
imports nor its requests, nor a server that is down, slow an epoch or stop the training::

    writer = TrackingWriter("mlflow", {"tracking_uri": "sqlite:////runs/mlflow.db"}, run, step_of=lambda s: s)
    register_log_stats_writer(writer)   # every statistics table is logged as metrics from now on
    ...
    unregister_log_stats_writer(writer)  # uploads the artifacts and ends the tracked run

* :meth:`write` turns the numeric statistics into metrics named like their TensorBoard tags,
  at the step ``step_of(log step)`` (the env-step count of that epoch), and queues them
  without ever blocking: a full pipe keeps them in memory until the child reads again.
* No thread is started (the runners fork worker processes, which needs a thread-free
  parent); the child's events are read whenever statistics are written.
* A tracking failure (the library is missing, the server is down, the disk is full) prints
  one ``Warning:`` line naming the log file ``<run dir>/tracking_<backend>.log``; the
  training and every other writer go on.
* :meth:`close` ends the tracked run with the status of the exception being handled
  (none: ``finished``, KeyboardInterrupt: ``interrupted``, other: ``failed``) and waits for
  the child to upload the artifacts (at most :data:`FINISH_TIMEOUT_S`).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.writers import LogStatsWriter
from maze.train.tracking.protocol import encode
from maze.train.tracking.run_info import TrackedRun, run_status, scalar_metrics

__all__ = ["BACKEND_LABELS", "FINISH_TIMEOUT_S", "TrackingWriter"]

BACKEND_LABELS = {"mlflow": "MLflow", "wandb": "W&B"}
"""The tracking backends (``logger`` config keys) and their names in messages."""

FINISH_TIMEOUT_S = 120.0
"""Longest wait for the tracking process at the end of a run (uploading artifacts); then it is stopped."""

_READ_SIZE = 65536


class TrackingWriter(LogStatsWriter):
    """Logs a training run's statistics to a tracking backend through a child process.

    Args:
        backend: ``mlflow`` or ``wandb`` (see :data:`BACKEND_LABELS`).
        settings: The backend's settings (the ``logger`` config, resolved: see
            :func:`~maze.train.tracking.setup.start_tracking`).
        run: The run to track.
        step_of: The tracking step of a log step (the env-step count at that epoch); called
            once per log step, when its first statistics arrive.
        artifacts: File names or globs in the run directory to upload at the end.
        summary_file: The training summary in the run directory (its best score is the objective).
    """

    def __init__(
        self,
        backend: str,
        settings: Mapping[str, Any],
        run: TrackedRun,
        step_of: Callable[[int], int],
        artifacts: Sequence[str] = (),
        summary_file: Optional[str] = None,
    ) -> None:
        self.backend = backend
        self.label = BACKEND_LABELS[backend]
        self.log_file = Path(run.run_dir) / f"tracking_{backend}.log"
        self.warned = False
        self._step_of = step_of
        self._steps: dict[int, int] = {}
        self._pid = os.getpid()
        self._pending = bytearray()
        self._events = bytearray()
        self._closed = False
        with open(self.log_file, "ab") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "maze.train.tracking.worker", backend],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                cwd=run.run_dir,
                start_new_session=True,  # Ctrl-C reaches the training, which then ends the tracked run itself
            )
        os.set_blocking(self._process.stdin.fileno(), False)
        os.set_blocking(self._process.stdout.fileno(), False)
        start = {"op": "start", "settings": dict(settings), "run": run.to_message(), "artifacts": list(artifacts)}
        self._send({**start, "summary_file": summary_file})

    def write(self, path: Optional[str], step: int, stats: LogStats) -> None:
        """Queues the numeric statistics of ``stats`` as metrics at the tracking step of log step ``step``."""
        if self._closed or os.getpid() != self._pid:  # a forked worker process inherited the registered writer
            return
        values = scalar_metrics(path, stats)
        if values and not self.warned:
            if step not in self._steps:
                self._steps[step] = int(self._step_of(step))
            time_ms = int(time.time() * 1000)
            self._send(
                {"op": "metrics", "step": self._steps[step], "epoch": step, "time_ms": time_ms, "values": values}
            )
        self._read_events()

    def close(self) -> None:
        """Ends the tracked run (status from the exception being handled, if any) and waits for the tracking process."""
        if self._closed or os.getpid() != self._pid:
            return
        self._closed = True
        self._pending += encode({"op": "finish", "status": run_status(sys.exc_info()[1])})
        os.set_blocking(self._process.stdin.fileno(), True)
        try:
            self._flush()
            self._process.stdin.close()
        except OSError:  # the tracking process is gone; its exit is reported below
            pass
        deadline = time.monotonic() + FINISH_TIMEOUT_S
        while self._read_events() and time.monotonic() < deadline:
            select.select([self._process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        try:
            code = self._process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
            self._warn(f"it did not finish within {FINISH_TIMEOUT_S:.0f} s and was stopped")
            return
        if code != 0:
            self._warn(f"the tracking process ended with exit code {code}")

    # --- pieces ----------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        """Queues ``message`` and writes what the pipe takes now."""
        self._pending += encode(message)
        try:
            self._flush()
        except OSError:  # the tracking process is gone
            self._pending.clear()
            self._warn(f"the tracking process ended (exit code {self._process.poll()})")

    def _flush(self) -> None:
        """Writes queued messages; stops early (non-blocking pipe) when the pipe is full."""
        fd = self._process.stdin.fileno()
        while self._pending:
            try:
                written = os.write(fd, self._pending)
            except BlockingIOError:
                return
            del self._pending[:written]

    def _read_events(self) -> bool:
        """Reads the events the tracking process has sent; returns False once its stdout has ended."""
        fd = self._process.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, _READ_SIZE)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            self._events += chunk
            *lines, rest = self._events.split(b"\n")
            self._events = bytearray(rest)
            for line in lines:
                self._handle_event(line)

    def _handle_event(self, line: bytes) -> None:
        event = json.loads(line)
        if event.get("event") == "error":
            self._warn(event.get("message", "unknown error"))

    def _warn(self, reason: str) -> None:
        """Prints the one warning of this writer; the writer stops sending metrics."""
        if self.warned:
            return
        self.warned = True
        print(
            f"Warning: {self.label} tracking failed ({reason}); the training goes on without it and TensorBoard "
            f"still writes (details: {self.log_file})",
            file=sys.stderr,
            flush=True,
        )
