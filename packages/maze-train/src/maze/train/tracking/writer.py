"""TrackingWriter: a statistics writer that hands a training run to MLflow or W&B in a tracking process.

The writer is what the training process holds; the tracking library runs in a child
process (:mod:`maze.train.tracking.worker`, see :mod:`maze.train.tracking.process`) fed
through a pipe, so that neither its imports nor its requests, nor a server that is down,
slow an epoch or stop the training::

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

import logging
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.writers import LogStatsWriter
from maze.train.tracking.process import claim
from maze.train.tracking.run_info import TrackedRun, run_status, scalar_metrics

logger = logging.getLogger(__name__)

__all__ = ["BACKEND_LABELS", "FINISH_TIMEOUT_S", "TrackingWriter"]

BACKEND_LABELS = {"mlflow": "MLflow", "wandb": "W&B"}
"""The tracking backends (``logger`` config keys) and their names in messages."""

FINISH_TIMEOUT_S = 120.0
"""Longest wait for the tracking process at the end of a run (uploading artifacts); then it is stopped."""


class TrackingWriter(LogStatsWriter):
    """Logs a training run's statistics to a tracking backend through a child process.

    Args:
        backend: ``mlflow`` or ``wandb`` (see :data:`BACKEND_LABELS`).
        settings: The backend's settings (the ``logger`` config, resolved: see
            :func:`~maze.train.tracking.setup.backend_settings`).
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
        self.label = BACKEND_LABELS[backend]
        self.warned = False
        self._step_of = step_of
        self._steps: dict[int, int] = {}
        self._pid = os.getpid()
        self._closed = False
        self._process = claim(backend, settings, Path(run.run_dir))
        self.log_file = self._process.log_file
        start = {"op": "start", "run": run.to_message(), "artifacts": list(artifacts), "summary_file": summary_file}
        self._send(start)

    def write(self, path: Optional[str], step: int, stats: LogStats) -> None:
        """Queues the numeric statistics of ``stats`` as metrics at the tracking step of log step ``step``."""
        if self._closed or os.getpid() != self._pid:  # a forked worker process inherited the registered writer
            return
        values = {} if self.warned else scalar_metrics(path, stats)
        if values:
            if step not in self._steps:
                self._steps[step] = int(self._step_of(step))
            time_ms = int(time.time() * 1000)
            self._send(
                {"op": "metrics", "step": self._steps[step], "epoch": step, "time_ms": time_ms, "values": values}
            )
            self._process.lower_priority()  # the training is under way: it keeps its cores
        self._handle(self._process.events()[0])

    def close(self) -> None:
        """Ends the tracked run (status from the exception being handled, if any) and waits for the tracking process."""
        if self._closed or os.getpid() != self._pid:
            return
        self._closed = True
        finish = {"op": "finish", "status": run_status(sys.exc_info()[1])}
        events, failure = self._process.finish(finish, FINISH_TIMEOUT_S)
        self._handle(events)
        if failure is not None:
            self._warn(failure)

    def _send(self, message: dict[str, Any]) -> None:
        if not self._process.send(message):
            self._warn(f"the tracking process ended (exit code {self._process.popen.poll()})")

    def _handle(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            if event.get("event") == "error":
                self._warn(event.get("message", "unknown error"))

    def _warn(self, reason: str) -> None:
        """Logs the one warning of this writer; the writer stops sending metrics."""
        if self.warned:
            return
        self.warned = True
        logger.warning(
            f"Warning: {self.label} tracking failed ({reason}); the training goes on without it and TensorBoard "
            f"still writes (details: {self.log_file})"
        )
