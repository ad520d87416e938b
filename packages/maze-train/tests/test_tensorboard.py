"""LogStatsWriterTensorboard: tags, scalars, histograms, text, flushing, global registration and readers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from maze.env.core.events import EventRecord
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.base_events import BaseEnvEvents, RewardEvents
from maze.env.log_stats.global_state import (
    clear_global_state,
    get_stats_logger,
    increment_log_step,
    register_log_stats_writer,
)
from maze.env.log_stats.log_stats import LogStats, LogStatsKey
from maze.train.tensorboard import (
    LogStatsWriterTensorboard,
    markdown_code_block,
    read_scalars,
    read_texts,
    stats_tag,
)
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader


@pytest.fixture
def writer(tmp_path: Path):
    tensorboard_writer = LogStatsWriterTensorboard(tmp_path)
    yield tensorboard_writer
    tensorboard_writer.close()


@pytest.fixture
def clean_global_state():
    clear_global_state()
    yield
    clear_global_state()


def epoch_stats(episode_rewards: list[list[float]], kpi: float) -> LogStats:
    """Epoch statistics of episodes with these step rewards (also fired as processed rewards) and one KPI each."""
    aggregator = LogStatsAggregator()
    for rewards in episode_rewards:
        for reward in rewards:
            aggregator.add_step(
                [
                    EventRecord(BaseEnvEvents, BaseEnvEvents.reward, {"value": reward}),
                    EventRecord(RewardEvents, RewardEvents.reward_processed, {"value": reward}),
                ]
            )
        aggregator.add_step(
            [EventRecord(BaseEnvEvents, BaseEnvEvents.kpi, {"name": "raw_piece_usage_per_step", "value": kpi})]
        )
        aggregator.end_episode()
    return aggregator.reduce()


def histograms(log_dir: Path) -> dict:
    accumulator = EventAccumulator(str(log_dir), size_guidance={"histograms": 0})
    accumulator.Reload()
    return {tag: accumulator.Histograms(tag) for tag in accumulator.Tags()["histograms"]}


@pytest.mark.parametrize(
    ("path", "key", "tag"),
    [
        ("train", LogStatsKey("BaseEnvEvents", "reward", "mean"), "train_BaseEnvEvents/reward/mean"),
        (None, LogStatsKey("BaseEnvEvents", "reward", "mean"), "BaseEnvEvents/reward/mean"),
        ("eval", LogStatsKey("BaseEnvEvents", "reward"), "eval_BaseEnvEvents/reward"),
        (
            "train",
            LogStatsKey("BaseEnvEvents", "kpi", "mean", ("raw_piece_usage_per_step",)),
            "train_BaseEnvEvents/kpi/mean/raw_piece_usage_per_step",
        ),
        (
            "train",
            LogStatsKey("ActionEvents", "action", None, ("substep_0", 3)),
            "train_ActionEvents/action/substep_0/3",
        ),
    ],
)
def test_tag_joins_prefix_topic_event_name_and_groups(path, key, tag) -> None:
    assert stats_tag(path, key) == tag


def test_aggregated_epoch_stats_round_trip_as_scalars_per_step(writer, tmp_path) -> None:
    first = epoch_stats([[1.0, 2.0], [3.0]], kpi=0.25)
    second = epoch_stats([[5.0]], kpi=0.5)
    writer.write("train", 1, first)
    writer.write("train", 2, second)

    scalars = read_scalars(tmp_path)

    assert scalars["train_BaseEnvEvents/reward/mean"] == [(1, 3.0), (2, 5.0)]
    assert scalars["train_BaseEnvEvents/reward/episode_count"] == [(1, 2.0), (2, 1.0)]
    assert scalars["train_BaseEnvEvents/kpi/mean/raw_piece_usage_per_step"] == [(1, 0.25), (2, 0.5)]
    # Every numeric statistic of the stats dict, and nothing else, is a scalar.
    numeric = {stats_tag("train", key) for key, value in first.items() if not isinstance(value, list)}
    assert set(scalars) == numeric


def test_list_stats_become_histograms_not_scalars(writer, tmp_path) -> None:
    writer.write("train", 4, epoch_stats([[1.0, 2.0], [3.0, 10.0]], kpi=0.0))

    tag = "train_RewardEvents/reward_processed"
    assert tag not in read_scalars(tmp_path)
    [event] = histograms(tmp_path)[tag]
    histogram = event.histogram_value
    assert event.step == 4
    assert (histogram.min, histogram.max, histogram.num, histogram.sum) == (1.0, 10.0, 4.0, 16.0)
    assert histogram.sum_squares == 1.0 + 4.0 + 9.0 + 100.0
    assert sum(histogram.bucket) == 4
    assert histogram.bucket_limit[-1] == 10.0


def test_value_kinds_scalars_histograms_and_skipped(writer, tmp_path) -> None:
    stats = {
        LogStatsKey("T", "numpy_int"): np.int64(7),
        LogStatsKey("T", "zero_dim"): np.array(2.5),
        LogStatsKey("T", "flag"): True,
        LogStatsKey("T", "ragged"): [np.array([1.0, 2.0]), np.array([3.0]), 4.0, float("nan")],
        LogStatsKey("T", "matrix"): np.ones((2, 3)),
        LogStatsKey("T", "attributes"): [{"a": 1}],
        LogStatsKey("T", "text"): "done",
        LogStatsKey("T", "nothing"): [],
        LogStatsKey("T", "words"): ["a", "b"],
    }
    writer.write(None, 1, stats)

    assert read_scalars(tmp_path) == {"T/numpy_int": [(1, 7.0)], "T/zero_dim": [(1, 2.5)], "T/flag": [(1, 1.0)]}
    written = {tag: events[0].histogram_value.num for tag, events in histograms(tmp_path).items()}
    assert written == {"T/ragged": 4.0, "T/matrix": 6.0}  # the NaN entry is dropped


def test_each_write_is_on_disk_before_close(writer, tmp_path) -> None:
    writer.write("train", 1, {LogStatsKey("BaseEnvEvents", "reward", "mean"): 1.5})
    assert read_scalars(tmp_path) == {"train_BaseEnvEvents/reward/mean": [(1, 1.5)]}
    writer.write_text("note", "hello")
    assert read_texts(tmp_path) == {"note": "hello"}


def test_config_and_command_round_trip_as_markdown_text(writer, tmp_path) -> None:
    config_yaml = "algorithm:\n  lr: 0.0005\nenv:\n  name: CartPole-v1\n"
    command = "maze-run -cn conf_train env.name=CartPole-v1 algorithm=a2c"
    writer.write_config(config_yaml, command)

    texts = read_texts(tmp_path)

    assert texts == {
        "config": "```yaml\nalgorithm:\n  lr: 0.0005\nenv:\n  name: CartPole-v1\n```",
        "command": f"```shell\n{command}\n```",
    }
    assert read_scalars(tmp_path) == {}


def test_code_block_fence_outgrows_backticks_in_the_text() -> None:
    assert markdown_code_block("a ``` b", "yaml") == "````yaml\na ``` b\n````"
    assert markdown_code_block("plain\n\n") == "```\nplain\n```"


def test_registered_writer_receives_stats_logger_writes_at_log_step(tmp_path, clean_global_state) -> None:
    writer = LogStatsWriterTensorboard(tmp_path)
    register_log_stats_writer(writer)
    increment_log_step()
    increment_log_step()
    get_stats_logger("train").log_stats({LogStatsKey("BaseEnvEvents", "reward", "mean"): -3.0})
    get_stats_logger("eval").log_stats({LogStatsKey("BaseEnvEvents", "reward", "mean"): 4.0})

    assert read_scalars(tmp_path) == {
        "train_BaseEnvEvents/reward/mean": [(2, -3.0)],
        "eval_BaseEnvEvents/reward/mean": [(2, 4.0)],
    }
    clear_global_state()  # unregisters and closes the writer
    with pytest.raises(RuntimeError, match="is closed; create a new LogStatsWriterTensorboard"):
        writer.write("train", 3, {LogStatsKey("BaseEnvEvents", "reward", "mean"): 1.0})


def test_close_twice_is_fine_and_writing_after_close_names_the_directory(tmp_path) -> None:
    writer = LogStatsWriterTensorboard(tmp_path / "run")
    writer.close()
    writer.close()
    with pytest.raises(RuntimeError, match=r"/run is closed"):
        writer.write_text("config", "x")


def test_stats_without_numbers_write_no_event(writer, tmp_path) -> None:
    writer.write("train", 1, {})
    writer.write("train", 1, {LogStatsKey("T", "text"): "no number"})
    [event_file] = tmp_path.glob("events.out.tfevents.*")
    events = list(EventFileLoader(str(event_file)).Load())
    assert [event.WhichOneof("what") for event in events] == ["file_version"]


def test_readers_merge_the_event_files_of_one_directory(tmp_path) -> None:
    for step in (1, 2):
        writer = LogStatsWriterTensorboard(tmp_path)
        writer.write("train", step, {LogStatsKey("BaseEnvEvents", "reward", "mean"): float(step)})
        writer.close()
    assert len(list(tmp_path.glob("events.out.tfevents.*"))) == 2
    assert read_scalars(tmp_path) == {"train_BaseEnvEvents/reward/mean": [(1, 1.0), (2, 2.0)]}


def test_readers_reject_a_missing_directory_and_return_nothing_for_an_empty_one(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="no TensorBoard log directory .*missing"):
        read_scalars(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="missing"):
        read_texts(tmp_path / "missing")
    assert read_scalars(tmp_path) == {} and read_texts(tmp_path) == {}


def test_importing_the_module_loads_no_tensorboard_module() -> None:
    code = "import sys, maze.train.tensorboard; print(sorted(m for m in sys.modules if m.startswith('tensorboard')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
