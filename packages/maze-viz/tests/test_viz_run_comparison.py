"""tensorboard_to_pandas and the run-comparison plot on event files, and their bad-input messages.

Event files of real training runs are read in tests/integration/test_viz_training_runs.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from matplotlib.image import imread
from maze.viz import DEFAULT_METRIC, RunDataError, plot_run_comparison, tensorboard_to_pandas
from maze.viz.run_comparison import main
from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.compat.proto.summary_pb2 import Summary
from tensorboard.summary.writer.event_file_writer import EventFileWriter


def write_run(run_dir: Path, curves: dict[str, list[float]]) -> Path:
    """An event file with one scalar per tag and step (steps 1, 2, ...)."""
    writer = EventFileWriter(str(run_dir))
    for tag, values in curves.items():
        for step, value in enumerate(values, start=1):
            summary = Summary(value=[Summary.Value(tag=tag, simple_value=value)])
            writer.add_event(Event(wall_time=time.time(), step=step, summary=summary))
    writer.close()
    return run_dir


def test_tensorboard_to_pandas_indexes_values_by_tag_and_step(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {DEFAULT_METRIC: [1.0, 2.5, 4.0], "train_BaseEnvEvents/reward/mean": [0.5]})
    frame = tensorboard_to_pandas(run)
    assert list(frame.index.names) == ["tag", "step"] and list(frame.columns) == ["value", "wall_time"]
    assert frame.loc[DEFAULT_METRIC]["value"].tolist() == [1.0, 2.5, 4.0]
    assert frame.loc[DEFAULT_METRIC].index.tolist() == [1, 2, 3]


def test_comparison_plot_has_one_labelled_curve_per_run_and_the_cli_writes_it(tmp_path: Path) -> None:
    first = write_run(tmp_path / "bc_then_ppo" / "run", {DEFAULT_METRIC: [5.0, 6.0, 7.0]})
    second = write_run(tmp_path / "ppo" / "run", {DEFAULT_METRIC: [1.0, 3.0]})
    figure = plot_run_comparison([first, second], labels=["BC then PPO", "PPO"], out=tmp_path / "cmp.pdf")
    axes = figure.axes[0]
    assert [line.get_label() for line in axes.get_lines()] == ["BC then PPO", "PPO"]
    assert [list(line.get_ydata()) for line in axes.get_lines()] == [[5.0, 6.0, 7.0], [1.0, 3.0]]
    assert axes.get_title() == DEFAULT_METRIC
    assert (tmp_path / "cmp.pdf").read_bytes().startswith(b"%PDF")

    out = tmp_path / "cli.png"
    assert main([str(first), str(second), "--out", str(out)]) == 0
    assert imread(out).std() > 0.05
    default_labels = plot_run_comparison([first, second]).axes[0].get_legend().get_texts()
    assert [text.get_text() for text in default_labels] == ["bc_then_ppo/run", "ppo/run"]


def test_bad_run_inputs_give_one_clear_message(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RunDataError, match=r"no TensorBoard event files \(events.out.tfevents.\*\) in"):
        tensorboard_to_pandas(empty)
    with pytest.raises(RunDataError, match="does not exist"):
        tensorboard_to_pandas(tmp_path / "missing")
    run = write_run(tmp_path / "run", {"train_BaseEnvEvents/reward/mean": [1.0]})
    with pytest.raises(RunDataError, match="has no scalar 'eval_BaseEnvEvents/reward/mean'.*train_BaseEnvEvents"):
        plot_run_comparison([run])
    with pytest.raises(RunDataError, match="got 1 labels for 2 run directories"):
        plot_run_comparison([run, run], labels=["one"])
    assert main([str(empty), "--out", str(tmp_path / "x.png")]) == 1
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and error[0].startswith("Error: no TensorBoard event files")
