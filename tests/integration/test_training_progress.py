"""Progress while training: a live bar on a terminal (a pseudo-terminal here) before the first epoch ends."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from cli_support import maze_run_executable

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "your_own_env"
EPOCH_0_LINE = re.compile(rb"epoch 0: \d+ env steps \(\d+ sub-steps\)")
"""The line printed once epoch 0's rollouts and updates are done."""


def run_on_terminal(command: list[str], cwd: Path, timeout: float = 300) -> bytes:
    """Runs ``command`` with stdout and stderr on a 120-column pseudo-terminal and returns all it wrote."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "HYDRA_FULL_ERROR")}
    env["MPLBACKEND"] = "Agg"
    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=terminal, stdout=terminal, stderr=terminal)
    os.close(terminal)
    output, deadline = b"", time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 1.0)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal closed: the process is done
                break
            if not chunk:
                break
            output += chunk
    finally:
        process.wait(timeout=30)
        os.close(controller)
    assert process.returncode == 0, output[-3000:].decode(errors="replace")
    return output


def test_a_terminal_sees_the_epochs_progress_before_it_ends(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(EXAMPLE, tmp_path / "your_own_env", ignore=shutil.ignore_patterns("outputs")))
    command = [
        maze_run_executable(),
        "-cd",
        "conf",
        "-cn",
        "conf_sorting",
        "algorithm=ppo",
        "algorithm.n_epochs=1",
        "hydra.run.dir=outputs/run",
    ]
    output = run_on_terminal(command, folder)
    epoch_end = EPOCH_0_LINE.search(output)
    assert epoch_end, output[-3000:].decode(errors="replace")
    before_epoch_end = output[: epoch_end.start()]
    updates = [part for part in before_epoch_end.split(b"\r") if part.startswith(b"epoch 0:") and b"%|" in part]
    assert len(updates) >= 2, output[-3000:].decode(errors="replace")  # the bar moved while the epoch ran
    assert b"env steps/s" in updates[-1]  # with the rate (tqdm also shows the time left)
    assert b"evaluation:" in output  # the evaluation's bar
    log = (folder / "outputs" / "run" / "maze_cli.log").read_text()
    assert "%|" not in log  # bars go to the terminal only


def test_terminal_check_uses_the_console_behind_the_job_log() -> None:
    from maze.train.progress import TrainingProgress

    assert TrainingProgress("off").live is False and TrainingProgress("bar").live is True
    assert TrainingProgress("auto").live == sys.stderr.isatty()
