"""Settings nested under a ``_target_`` fail a real ``maze-run`` with one ``Error:`` line, before anything is built."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_cli import maze_run


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ("algorithm=es", "algorithm.optimizer.step_size=-1"),
            "Error: algorithm.optimizer.step_size=-1 is out of range; it must be >= 0",
        ),
        (("algorithm=ppo", "runner.concurrency=-2"), "Error: runner.concurrency=-2 is out of range; it must be >= 0"),
    ],
)
def test_a_bad_nested_setting_is_one_error_line(tmp_path: Path, overrides: tuple[str, ...], message: str) -> None:
    result: subprocess.CompletedProcess = maze_run(
        "-cn",
        "conf_train",
        "env.name=CartPole-v1",
        "runner=dev",
        *overrides,
        f"hydra.run.dir={tmp_path / 'run'}",
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert [line for line in result.stderr.splitlines() if line.startswith("Error:")] == [message]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run" / "spaces_config.yaml").exists()
