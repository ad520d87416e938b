"""runner.progress (TrainingProgress) and runner.cpu_threads (apply_cpu_threads)."""

import io
import logging
import os
import re

import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.env.utils.library_output import LIBRARY_LOGGER
from maze.train.progress import TrainingProgress
from maze.train.runners.cpu_threads import THREAD_VARIABLES, apply_cpu_threads


def test_epoch_lines_in_every_mode_but_off(capsys: pytest.CaptureFixture[str]) -> None:
    for mode, expected in (("epoch", 1), ("auto", 1), ("bar", 1), ("off", 0)):
        TrainingProgress(mode, stream=io.StringIO()).epoch_done(3, 1000, 2000, 2.0)
        lines = capsys.readouterr().out.splitlines()
        assert len([line for line in lines if line.startswith("epoch 3: ")]) == expected, mode
    TrainingProgress("epoch").epoch_done(3, 1000, 2000, 2.0)
    assert capsys.readouterr().out == "epoch 3: 1000 env steps (2000 sub-steps) in 2.0s, 500 env steps/s\n"


def test_an_embedding_application_silences_the_epoch_lines_with_logging(capsys: pytest.CaptureFixture[str]) -> None:
    library = logging.getLogger(LIBRARY_LOGGER)
    level = library.level
    library.setLevel(logging.WARNING)
    try:
        TrainingProgress("epoch").epoch_done(3, 1000, 2000, 2.0)
    finally:
        library.setLevel(level)
    assert capsys.readouterr().out == ""


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


def test_epoch_line_leaves_out_sub_steps_a_trainer_does_not_count(capsys: pytest.CaptureFixture[str]) -> None:
    TrainingProgress("epoch").epoch_done(0, 300, None, 1.5)
    assert capsys.readouterr().out == "epoch 0: 300 env steps in 1.5s, 200 env steps/s\n"


def _epoch_lines(output: str) -> list[int]:
    """The env steps of every ``epoch N: <steps> env steps ...`` line (not the bars' ``epoch N: 50%|...``)."""
    return [int(match.group(1)) for match in re.finditer(r"epoch \d+: (\d+) env steps( \(\d+ sub-steps\))? in", output)]


def test_es_and_sac_report_their_epochs_through_the_shared_loop(tmp_path, capsys) -> None:
    from es_test_support import es_job_config, set_up_es
    from sac_test_support import sac_config, set_up

    bars = io.StringIO()
    es = set_up_es(tmp_path / "es", es_job_config(n_epochs=2))
    es.trainer.progress = TrainingProgress("bar", stream=bars)
    es.run()
    sac = set_up(tmp_path / "sac", sac_config(n_epochs=1, epoch_length=10))
    sac.trainer.progress = TrainingProgress("bar", stream=bars)
    sac.run()

    lines = capsys.readouterr().out
    es_steps, sac_steps = _epoch_lines(lines)[:2], _epoch_lines(lines)[2:]
    assert sum(es_steps) == es.trainer.env_steps and all(steps > 0 for steps in es_steps)
    assert sac_steps == [10]  # epoch_length iterations of one one-step rollout of one env
    assert "epoch 0: 10 env steps (10 sub-steps)" in lines
    assert "env steps/s" in bars.getvalue() and not _epoch_lines(bars.getvalue())  # bars drawn; the lines are logged
