"""The tracking process of one backend and the pipe to it, from the training process's side.

:class:`TrackingProcess` starts ``python -m maze.train.tracking.worker <backend>`` and tells it
at once to ``connect`` (import its library, open the store), then carries the messages of
:mod:`maze.train.tracking.protocol` without ever blocking the caller: what the pipe does not
take now waits in memory until the next call. Its stderr goes to ``<run dir>/tracking_<backend>.log``.

:func:`prestart` starts the processes of a job before the job itself builds anything
(``maze-run`` calls it before importing torch), so the library's import (about 1.5 s for
MLflow) overlaps with the job's start-up on a spare core; :func:`claim` hands such a process
to the job's writer, or starts one.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from maze.train.tracking.protocol import encode
from maze.train.tracking.worker import NICENESS

__all__ = ["TrackingProcess", "claim", "prestart"]

_READ_SIZE = 65536

_PRESTARTED: dict[str, TrackingProcess] = {}
"""Started by :func:`prestart`, not yet claimed: backend -> process."""


class TrackingProcess:
    """A tracking process connecting to ``backend`` with ``settings``, writing its log into ``run_dir``.

    Args:
        backend: ``mlflow`` or ``wandb``.
        settings: The backend's settings (the resolved ``logger`` config).
        run_dir: The run directory (the process's working directory and log file's place).
    """

    def __init__(self, backend: str, settings: Mapping[str, Any], run_dir: Path) -> None:
        self.backend = backend
        self.settings = dict(settings)
        self.run_dir = Path(run_dir)
        self.log_file = self.run_dir / f"tracking_{backend}.log"
        self._pending = bytearray()
        self._events = bytearray()
        self._lowered = False
        with open(self.log_file, "ab") as log:
            self.popen = subprocess.Popen(
                [sys.executable, "-m", "maze.train.tracking.worker", backend],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                cwd=self.run_dir,
            )
        os.set_blocking(self.popen.stdin.fileno(), False)
        os.set_blocking(self.popen.stdout.fileno(), False)
        self.send({"op": "connect", "settings": self.settings})

    def matches(self, backend: str, settings: Mapping[str, Any], run_dir: Path) -> bool:
        """Whether this process serves ``backend`` with these settings for ``run_dir`` (and still runs)."""
        same = (self.backend, self.settings, self.run_dir) == (backend, dict(settings), Path(run_dir))
        return same and self.popen.poll() is None

    def send(self, message: dict[str, Any]) -> bool:
        """Queues ``message`` and writes what the pipe takes now; False if the process is gone."""
        self._pending += encode(message)
        try:
            self._flush()
        except OSError:
            self._pending.clear()
            return False
        return True

    def events(self) -> tuple[list[dict[str, Any]], bool]:
        """The events the process has sent since the last call, and whether its stdout is still open."""
        received: list[dict[str, Any]] = []
        fd = self.popen.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, _READ_SIZE)
            except BlockingIOError:
                return received, True
            if not chunk:
                return received, False
            self._events += chunk
            *lines, rest = self._events.split(b"\n")
            self._events = bytearray(rest)
            received += [json.loads(line) for line in lines]

    def finish(self, message: dict[str, Any], timeout: float) -> tuple[list[dict[str, Any]], Optional[str]]:
        """Sends the last ``message``, closes the pipe and waits for the process to end.

        Returns:
            The events it sent meanwhile, and why it ended badly (None: exit code 0), e.g.
            ``it did not finish within 120 s and was stopped`` (then it is killed).
        """
        self._pending += encode(message)
        self._restore_priority()
        os.set_blocking(self.popen.stdin.fileno(), True)
        try:
            self._flush()
            self.popen.stdin.close()
        except OSError:  # the process is gone; its exit code says why
            pass
        deadline = time.monotonic() + timeout
        received, open_ = self.events()
        while open_ and time.monotonic() < deadline:
            select.select([self.popen.stdout], [], [], max(0.0, deadline - time.monotonic()))
            more, open_ = self.events()
            received += more
        try:
            code = self.popen.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
            return received, f"it did not finish within {timeout:.0f} s and was stopped"
        return received, None if code == 0 else f"the tracking process ended with exit code {code}"

    def abandon(self) -> None:
        """Lets an unclaimed process end: it exits when its stdin closes, before any run was created."""
        try:
            self.popen.stdin.close()
        except OSError:
            pass

    def lower_priority(self) -> None:
        """Lowers the process to nice :data:`~maze.train.tracking.worker.NICENESS` (never raises it); once only.

        The writer calls it with the first epoch's metrics: from then on the training needs its cores,
        whether or not the process has finished connecting (a short run can end before MLflow is imported).
        It does not replace the worker's own :func:`~maze.train.tracking.worker.lower_priority` once its run
        has started: on Linux this call renices only the process's main thread, while the worker's call
        also reaches the library threads it starts afterwards (one run of the tracking benchmark with this
        call alone: MLflow 1.15x and W&B 1.17x the TensorBoard-only training time, against 1.08x and 1.01x
        with both calls).
        """
        if self._lowered:
            return
        self._lowered = True
        try:
            if os.getpriority(os.PRIO_PROCESS, self.popen.pid) < NICENESS:
                os.setpriority(os.PRIO_PROCESS, self.popen.pid, NICENESS)
        except (AttributeError, OSError):  # not permitted (or not POSIX, or already gone): it keeps its priority
            pass

    def _restore_priority(self) -> None:
        """Gives the process (niced once its run started) this process's priority, where the system allows.

        Raising a priority needs ``CAP_SYS_NICE`` or a high enough ``RLIMIT_NICE``; without them it
        finishes at its lowered priority.
        """
        try:
            os.setpriority(os.PRIO_PROCESS, self.popen.pid, os.getpriority(os.PRIO_PROCESS, 0))
        except (AttributeError, OSError):  # not permitted (or not POSIX): it finishes at its low priority
            pass

    def _flush(self) -> None:
        """Writes queued messages; stops early (non-blocking pipe) when the pipe is full.

        Raises:
            OSError: The process is gone (broken pipe).
        """
        fd = self.popen.stdin.fileno()
        while self._pending:
            try:
                written = os.write(fd, self._pending)
            except BlockingIOError:
                return
            del self._pending[:written]


def prestart(backend: str, settings: Mapping[str, Any], run_dir: Path) -> TrackingProcess:
    """Starts the tracking process of ``backend`` now, for the writer that the job will create (see :func:`claim`).

    A process prestarted earlier in this process and never claimed (its job failed before
    training) is let go first.
    """
    stale = _PRESTARTED.pop(backend, None)
    if stale is not None:
        stale.abandon()
    _PRESTARTED[backend] = TrackingProcess(backend, settings, run_dir)
    return _PRESTARTED[backend]


def claim(backend: str, settings: Mapping[str, Any], run_dir: Path) -> TrackingProcess:
    """The prestarted process for exactly this backend, settings and run directory, else a new one."""
    prestarted = _PRESTARTED.pop(backend, None)
    if prestarted is not None and prestarted.matches(backend, settings, run_dir):
        return prestarted
    if prestarted is not None:
        prestarted.abandon()
    return TrackingProcess(backend, settings, run_dir)
