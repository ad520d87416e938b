"""The service as a child process on loopback: start, wait until it answers, kill, restart (tests, benchmark)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Optional

__all__ = ["ServiceProcess", "free_port"]

EXAMPLE_DIR = Path(__file__).resolve().parent.parent
"""The folder holding the ``agent_service`` package (put on the child's PYTHONPATH)."""


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServiceProcess:
    """``python -m agent_service MODEL_DIR --port PORT ARGS`` in a child process, on a fixed loopback port.

    Args:
        model_dir: The ONNX export to serve.
        args: Further command-line arguments of the service.
        port: The port (None: a free one); restarts reuse it.
        log_path: Where the child's output goes (None: discarded).
        python: The interpreter that runs the service.
        env: Environment variables of the child on top of this process's (e.g. ``MAZE_SERVICE_TOKEN``).
    """

    def __init__(
        self,
        model_dir: os.PathLike,
        *args: str,
        port: Optional[int] = None,
        log_path: Optional[Path] = None,
        python: str = sys.executable,
        env: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.port = free_port() if port is None else port
        self.url = f"http://127.0.0.1:{self.port}"
        self.command = [python, "-m", "agent_service", str(model_dir), "--port", str(self.port), *args]
        self.log_path = log_path
        self.env = dict(env or {})
        self.process: Optional[subprocess.Popen] = None
        self._log: Optional[IO[bytes]] = None

    def start(self, timeout: float = 60.0) -> float:
        """Starts the child and waits until ``GET /health`` answers; returns the seconds that took.

        Raises:
            RuntimeError: The child exited or did not answer within ``timeout`` (with its output's tail).
        """
        started = time.perf_counter()
        env = {
            **os.environ,
            **self.env,
            "PYTHONPATH": os.pathsep.join(filter(None, (str(EXAMPLE_DIR), os.environ.get("PYTHONPATH")))),
        }
        self._log = open(self.log_path, "ab") if self.log_path else None  # noqa: SIM115 (closed in stop())
        output = self._log if self._log else subprocess.DEVNULL
        self.process = subprocess.Popen(self.command, env=env, stdout=output, stderr=subprocess.STDOUT)
        while time.perf_counter() - started < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"the service exited with {self.process.returncode}: {self._tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=1.0) as response:
                    if response.status == 200:
                        return time.perf_counter() - started
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the service did not answer on {self.url} within {timeout:g} s: {self._tail()}")

    def alive(self) -> bool:
        """True while the child runs."""
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """Kills the child at once (SIGKILL: no shutdown code runs, as in a crash)."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        """Stops the child gracefully (SIGTERM: uvicorn finishes its requests and shuts down)."""
        self._end(signal.SIGTERM)

    def __enter__(self) -> ServiceProcess:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _end(self, sig: signal.Signals) -> None:
        if self.alive():
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def _tail(self) -> str:
        if self.log_path is None or not self.log_path.is_file():
            return "(no log)"
        return self.log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
