"""The tracking process: ``python -m maze.train.tracking.worker {mlflow,wandb}``, started by a TrackingWriter.

It reads the messages of :mod:`maze.train.tracking.protocol` from stdin (``connect``
first, sent as soon as it is started) and makes the tracking library's calls, so that importing MLflow (about 1.5 s) or W&B, creating a
store and every request happen off the training process. Connecting and starting the run
(a few seconds of CPU) run at the training's priority, during the job's start-up, so the first
epoch's metrics have a store to go to; then the process lowers its priority (nice
:data:`NICENESS`; the training process lowers it with its first epoch's metrics if connecting
takes longer): the per-epoch requests are small, and the training keeps its cores (at nice
19 a process gets about 1.5 % of a core beside busy training processes, and connecting took
minutes). When the training ends, the training process gives it back its own priority where the
system allows. It stays in the training's session (a session of its own would be an
autogroup of its own, which Linux schedules beside the training whatever its niceness) and
ignores Ctrl-C and SIGTERM: it ends with ``finish`` or with its stdin.

Its stdout carries the events back; whatever the libraries print goes to stderr, which
the writer points at ``<run dir>/tracking_<backend>.log``. After the first error the
process reports it once, ends a started run as failed where the store still takes that, and
drops everything up to ``finish`` (which, for an interrupted training, marks it killed). When
stdin ends without ``finish``, a started run ends as ``interrupted`` (the training process was
killed) and a process that started none just exits (a prestarted process whose job never trained).
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO, Optional

from maze.train.tracking.protocol import encode

__all__ = ["BACKENDS", "NICENESS", "TrackingSession", "lower_priority", "main"]

BACKENDS = {
    "mlflow": ("maze.train.tracking.mlflow_backend", "MLflowBackend"),
    "wandb": ("maze.train.tracking.wandb_backend", "WandbBackend"),
}
"""Backend name -> (module, class) of the tracking-process side."""

NICENESS = 10
"""The tracking process's niceness once its run has started (about 10 % of a core beside a busy training)."""

_MESSAGE_LIMIT = 300


class TrackingSession:
    """Hands the messages of one training run to its backend; reports the first error once.

    Args:
        backend: ``mlflow`` or ``wandb``.
        events: Where the events go (the process's original stdout).
    """

    def __init__(self, backend: str, events: BinaryIO) -> None:
        self.backend_name = backend
        self.events = events
        self.backend: Any = None
        self.started = False
        self.failed = False
        self.ended_as: Optional[str] = None
        self.run_dir = Path()
        self.artifacts: list[str] = []
        self.summary_file: Optional[str] = None
        self.step = 0

    def handle(self, message: dict[str, Any]) -> bool:
        """Handles one message; returns True after ``finish``."""
        op = message["op"]
        if not self.failed:
            try:
                getattr(self, f"_{op}")(message)
            except Exception as error:  # any failure of the library or the store: report it, keep training alive
                self._fail(error)
                self._abort(message["status"] if op == "finish" else "failed")
        elif op == "finish":
            self._abort(message["status"])
        if op == "start":
            lower_priority()
        return op == "finish"

    def _connect(self, message: dict[str, Any]) -> None:
        module, name = BACKENDS[self.backend_name]
        self.backend = getattr(importlib.import_module(module), name)(message["settings"])

    def _start(self, message: dict[str, Any]) -> None:
        self.run_dir = Path(message["run"]["run_dir"])
        self.artifacts = list(message.get("artifacts", []))
        self.summary_file = message.get("summary_file")
        self.started = True
        self.backend.start(message["run"])

    def _metrics(self, message: dict[str, Any]) -> None:
        step = int(message["step"])
        self.step = max(self.step, step)  # the objective goes at the last step (an evaluation may come late)
        self.backend.log_metrics(step, int(message["epoch"]), int(message["time_ms"]), message["values"])

    def _finish(self, message: dict[str, Any]) -> None:
        if not self.started:
            return
        files = artifact_files(self.run_dir, self.artifacts)
        score = objective(self.run_dir / self.summary_file) if self.summary_file else None
        self.backend.finish(message["status"], files, score, self.step)

    def _fail(self, error: Exception) -> None:
        traceback.print_exc()
        self.failed = True
        text = " ".join(str(error).split()) or type(error).__name__
        if len(text) > _MESSAGE_LIMIT:
            text = text[: _MESSAGE_LIMIT - 3] + "..."
        self.events.write(encode({"event": "error", "message": f"{type(error).__name__}: {text}"}))
        self.events.flush()

    def _abort(self, status: str) -> None:
        """Ends a started run that failed as ``status`` (``interrupted`` stays, anything else is ``failed``).

        The store may refuse this too (it is full, the server is down): the traceback goes to the log.
        """
        final = "interrupted" if status == "interrupted" else "failed"
        if not self.started or self.backend is None or self.ended_as == final:
            return
        try:
            self.backend.end(final)
            self.ended_as = final
        except Exception:  # the store that failed may fail again: nothing more to do than log it
            traceback.print_exc()


def artifact_files(run_dir: Path, patterns: Sequence[str]) -> list[Path]:
    """The files of ``run_dir`` that match ``patterns`` (names or globs), in pattern order, each once."""
    files: list[Path] = []
    for pattern in patterns:
        for path in sorted(run_dir.glob(pattern)):
            if path.is_file() and path not in files:
                files.append(path)
    return files


def objective(summary_file: Path) -> Optional[float]:
    """The best evaluation score of a training summary, what ``maze-run`` returns to sweepers (None: none)."""
    try:
        value = json.loads(summary_file.read_text(encoding="utf-8")).get("best_eval_reward")
    except (OSError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, (int, float)) else None


def lower_priority() -> None:
    """Lowers this process's priority to nice :data:`NICENESS` (never raises it)."""
    try:
        os.nice(max(0, NICENESS - os.nice(0)))
    except OSError:  # not permitted: run at the training's priority
        pass


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the tracking process for the backend named in ``argv`` (default: the command line)."""
    for signum in (signal.SIGINT, signal.SIGTERM):  # the training process ends the tracked run (interrupted)
        signal.signal(signum, signal.SIG_IGN)
    backend = (list(sys.argv[1:]) if argv is None else list(argv))[0]
    events = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # what the libraries print goes to the log, not the events
    session = TrackingSession(backend, events)
    for line in iter(sys.stdin.buffer.readline, b""):
        if session.handle(json.loads(line)):
            return 0
    session.handle({"op": "finish", "status": "interrupted"})  # stdin ended without finish: the training was killed
    return 0


if __name__ == "__main__":
    sys.exit(main())
