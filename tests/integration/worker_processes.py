"""Killing a worker process of a running ``maze-run`` job, and checking that none of its processes survive.

Shared by the IMPALA actor and SAC worker tests: both runners fork their worker processes from
a forkserver, and a killed worker must stop the run with one ``Error:`` line and leave no
process behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from cli_support import maze_run_command, maze_run_env, seeds


@dataclass
class KilledRun:
    """What a run did after one of its workers was killed."""

    returncode: int
    output: str
    processes: list[int]
    """Every process below the run's main process just before the kill."""

    def error_lines(self) -> list[str]:
        return [line for line in self.output.splitlines() if line.startswith("Error: ")]

    def survivors(self, grace_seconds: float = 10.0) -> list[int]:
        """The run's processes still alive ``grace_seconds`` after it ended (zombies do not count)."""
        deadline = time.monotonic() + grace_seconds
        while time.monotonic() < deadline and any(running(pid) for pid in self.processes):
            time.sleep(0.2)
        return [pid for pid in self.processes if running(pid)]


def kill_a_worker(arguments: tuple[str, ...], n_workers: int, run_dir: Path, log: Path) -> KilledRun:
    """Starts ``maze-run`` (seed 0), waits for ``n_workers`` workers and the first iteration, SIGKILLs the last worker."""
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as output:
        process = subprocess.Popen(
            maze_run_command(*arguments, *seeds(0), run_dir=run_dir),
            cwd=run_dir.parent,
            env=maze_run_env(),
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
        )
    try:
        deadline = time.monotonic() + 120
        workers: list[int] = []
        while time.monotonic() < deadline and process.poll() is None:
            workers = worker_pids(process.pid)
            if len(workers) == n_workers and "Iteration 0" in log.read_text():
                break
            time.sleep(0.5)
        assert len(workers) == n_workers, log.read_text()[-3000:]
        everything = descendants(process.pid)
        time.sleep(1.0)
        os.kill(workers[-1], signal.SIGKILL)
        returncode = process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return KilledRun(returncode, log.read_text(), everything)


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def running(pid: int) -> bool:
    """Whether the process exists and is no zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def worker_pids(pid: int) -> list[int]:
    """The worker processes: the children of the forkserver process below ``pid``."""
    for child in descendants(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"forkserver" in command:
            return [grandchild for grandchild in descendants(child) if running(grandchild)]
    return []
