"""Run-directory safety and one-line OS error messages of maze-run."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from hydra import compose, initialize_config_module
from maze.env.errors import ConfigurationError
from maze.rl.cli import describe_error
from maze.rl.run_dir_guard import RunDirGuard, RunDirRefused, holds_a_run


def test_holds_a_run_looks_for_outputs_of_a_previous_run(tmp_path: Path) -> None:
    assert not holds_a_run(tmp_path / "missing") and not holds_a_run(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    assert not holds_a_run(tmp_path)  # a folder of the user's: only run outputs count
    (tmp_path / "state_dict.pt").write_bytes(b"")
    assert holds_a_run(tmp_path)


@pytest.mark.parametrize(
    "output", ["state_dict.pt", "events.out.tfevents.1.host", "trajectory_data/", "event_logs/", "spaces_config.yaml"]
)
def test_a_run_directory_holds_a_run_once_it_has_any_output_besides_config_and_log(tmp_path: Path, output: str) -> None:
    (tmp_path / ".hydra").mkdir()
    (tmp_path / ".hydra" / "config.yaml").write_text("env: {}")
    (tmp_path / "maze_cli.log").write_text("Error: could not make the gymnasium env 'CartPol-v1'")
    assert not holds_a_run(tmp_path)  # an earlier start that failed before producing anything
    if output.endswith("/"):
        (tmp_path / output).mkdir()
    else:
        (tmp_path / output).write_bytes(b"")
    assert holds_a_run(tmp_path)


def _config(run_dir: Path, overwrite: bool) -> object:
    """The composed ``conf_train`` config (with its hydra node) of a run in ``run_dir``."""
    with initialize_config_module("maze.conf", version_base="1.3"):
        return compose(
            "conf_train",
            overrides=[f"hydra.run.dir={run_dir}", f"overwrite_run_dir={str(overwrite).lower()}"],
            return_hydra_config=True,
        )


def test_the_guard_refuses_a_directory_with_outputs_unless_overwriting_is_asked_for(tmp_path: Path) -> None:
    (tmp_path / ".hydra").mkdir()
    (tmp_path / "maze_cli.log").touch()
    RunDirGuard().on_run_start(_config(tmp_path, overwrite=False))  # a failed start's config and log: reusable
    (tmp_path / "state_dict.pt").touch()
    with pytest.raises(RunDirRefused) as refused:
        RunDirGuard().on_run_start(_config(tmp_path, overwrite=False))
    assert isinstance(refused.value.error, ConfigurationError)
    assert f"input_dir={tmp_path}" in str(refused.value.error) and "hydra.run.dir=" in str(refused.value.error)
    assert "overwrite_run_dir=true" in str(refused.value.error)
    RunDirGuard().on_run_start(_config(tmp_path, overwrite=True))
    RunDirGuard().on_run_start(_config(tmp_path / "fresh", overwrite=False))


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (
            OSError(errno.ENOSPC, "No space left on device", "/runs/x/state_dict.pt"),
            "cannot access '/runs/x/state_dict.pt': No space left on device (ENOSPC); free space",
        ),
        (
            PermissionError(errno.EACCES, "Permission denied", "/readonly/run"),
            "cannot access '/readonly/run': Permission denied (EACCES); make it writable",
        ),
        (ConfigurationError("bad value"), "bad value"),
    ],
)
def test_os_errors_are_one_line_with_path_and_errno_meaning(error: Exception, expected: str) -> None:
    assert describe_error(error).startswith(expected)
    assert "\n" not in describe_error(error)
