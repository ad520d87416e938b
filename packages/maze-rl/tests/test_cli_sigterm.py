"""SIGTERM (``kill``, a job scheduler, a container stop) ends a ``maze-run`` job like Ctrl-C: one message, no traceback."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest
from maze.env.utils.termination import Terminated, raise_lost_sigterm
from maze.rl.cli import _sigterm_as_interrupt
from test_cli import maze_run_environment, maze_run_executable


def test_sigterm_ends_a_job_with_one_line_naming_its_outputs(tmp_path: Path) -> None:
    waiting = tmp_path / "meet"  # the runner leaves a file here, then waits for a partner that never comes
    process = subprocess.Popen(
        [maze_run_executable(), "runner._target_=fake_runners.RendezvousRunner", f"+runner.directory={waiting}",
         "+runner.job=0", "+runner.timeout=60", "hydra.run.dir=run"],
        cwd=tmp_path, env=maze_run_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (waiting.is_dir() and any(waiting.iterdir())):
        assert process.poll() is None and time.monotonic() < deadline, "the run did not start"
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)  # what `kill <pid>` does
    stdout, stderr = process.communicate(timeout=60)

    assert process.returncode == 128 + signal.SIGTERM
    assert f"Interrupted (SIGTERM). The outputs so far are in {tmp_path / 'run'}\n" in stdout
    assert "Interrupted" not in stderr and "Traceback" not in stdout + stderr
    assert f"Interrupted (SIGTERM). The outputs so far are in {tmp_path / 'run'}" in (
        next((tmp_path / "run").rglob("maze_cli.log")).read_text()
    )


def test_a_sigterm_a_finalizer_lost_is_noted_in_one_line_and_raised_again_by_the_epoch_loops_check(capsys) -> None:
    class SignalledWhileCollected:
        def __del__(self) -> None:
            signal.raise_signal(signal.SIGTERM)  # the handler raises here, where Python can only drop the exception

    with _sigterm_as_interrupt():
        SignalledWhileCollected()  # collected at once
        with pytest.raises(Terminated):
            raise_lost_sigterm()
    raise_lost_sigterm()  # the record ends with the handler

    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    note = capsys.readouterr().err
    assert note.startswith("SIGTERM arrived in a finalizer in <function ") and "SignalledWhileCollected.__del__" in note
    assert note.endswith("; a training job stops before its next epoch\n") and note.count("\n") == 1
