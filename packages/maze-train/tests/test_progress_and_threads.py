"""runner.progress (TrainingProgress) and runner.cpu_threads (apply_cpu_threads)."""

import io
import os

import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.train.progress import TrainingProgress
from maze.train.runners.cpu_threads import THREAD_VARIABLES, apply_cpu_threads


def test_epoch_lines_in_every_mode_but_off() -> None:
    for mode, expected in (("epoch", 1), ("auto", 1), ("bar", 1), ("off", 0)):
        stream = io.StringIO()
        TrainingProgress(mode, stream=stream).epoch_done(3, 1000, 2000, 2.0)
        lines = stream.getvalue().splitlines()
        assert len([line for line in lines if line.startswith("epoch 3: ")]) == expected, mode
    stream = io.StringIO()
    TrainingProgress("epoch", stream=stream).epoch_done(3, 1000, 2000, 2.0)
    assert stream.getvalue() == "epoch 3: 1000 env steps (2000 sub-steps) in 2.0s, 500 env steps/s\n"


def test_bars_are_drawn_only_when_live() -> None:
    quiet, drawn = io.StringIO(), io.StringIO()
    for mode, stream in (("auto", quiet), ("bar", drawn)):  # a StringIO is no terminal
        bar = TrainingProgress(mode, stream=stream).bar("epoch 0", 100, "env steps")
        bar.update(50)
        bar.close()
    assert quiet.getvalue() == ""
    assert "epoch 0:" in drawn.getvalue() and "env steps/s" in drawn.getvalue()


def test_unknown_progress_mode_is_one_clear_error() -> None:
    with pytest.raises(
        ConfigurationError, match=r"runner.progress='loud' is not one of \['auto', 'bar', 'epoch', 'off'\]"
    ):
        TrainingProgress("loud")


def test_cpu_threads_limit_torch_and_the_environment_of_new_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    before = torch.get_num_threads()
    for variable in THREAD_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    try:
        apply_cpu_threads(2)
        assert torch.get_num_threads() == 2
        assert all(os.environ[variable] == "2" for variable in THREAD_VARIABLES)
        apply_cpu_threads(None)  # null: nothing changes
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("value", [0, -1, 1.5, True, "2"])
def test_invalid_cpu_threads_are_refused(value: object) -> None:
    with pytest.raises(ConfigurationError, match="runner.cpu_threads must be a positive integer"):
        apply_cpu_threads(value)  # type: ignore[arg-type]
