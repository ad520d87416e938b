"""Console/file writers (the documented table, character for character) and the global logging state."""

from __future__ import annotations

import numpy as np
import pytest
from maze.env.log_stats.global_state import (
    clear_global_state,
    get_log_step,
    get_stats_logger,
    increment_log_step,
    log_stats,
    register_log_stats_writer,
    unregister_log_stats_writer,
)
from maze.env.log_stats.log_stats import LogStatsKey
from maze.env.log_stats.writers import LogStatsWriter, LogStatsWriterConsole, LogStatsWriterFile, format_stats_value

# The table shape of the documentation (train prefix, log step 12), one row per feature:
# an empty label column, a cut topic, a histogram, a float, and a cut label.
DOCUMENTED_TABLE = """\
 step|path                                                                        |               value
=====|============================================================================|====================
   12|train     MultiStepActorCritic..time_epoch            ······················|              24.333
   12|train     MultiStepActorCritic..policy_loss           0                     |              -0.016
   12|train     DiscreteActionEvents  action                substep_0/piece_idx   | [len:8000, μ:169.2]
   12|train     DiscreteActionEvents  action                substep_0/order       |    [len:15, μ:82.3]
   12|train     BaseEnvEvents         reward                mean                  |            -186.450
   12|train     BaseEnvEvents         kpi                   max/raw_piece_usage_..|               0.135
   12|train     BaseEnvEvents         kpi                   mean/raw_piece_usage..|               0.077
"""

CRAFTED_STATS = {
    LogStatsKey("MultiStepActorCriticEvents", "time_epoch"): 24.3331,
    LogStatsKey("MultiStepActorCriticEvents", "policy_loss", None, (0,)): -0.0162,
    LogStatsKey("DiscreteActionEvents", "action", None, ("substep_0", "piece_idx")): [169.2] * 8000,
    LogStatsKey("DiscreteActionEvents", "action", None, ("substep_0", "order")): [82.3] * 15,
    LogStatsKey("BaseEnvEvents", "reward", "mean"): np.float64(-186.45),
    LogStatsKey("BaseEnvEvents", "kpi", "max", ("raw_piece_usage_per_step",)): 0.135,
    LogStatsKey("BaseEnvEvents", "kpi", "mean", ("raw_piece_usage_per_step",)): 0.077,
}


@pytest.fixture(autouse=True)
def fresh_global_state():
    clear_global_state()
    yield
    clear_global_state()


def test_console_writer_prints_the_documented_table(capsys):
    LogStatsWriterConsole().write("train", 12, CRAFTED_STATS)
    assert capsys.readouterr().out == DOCUMENTED_TABLE


def test_long_prefix_widens_the_path_column_and_no_prefix_drops_it(capsys):
    stats = {LogStatsKey("BaseEnvEvents", "reward", "episode_count"): 50}
    LogStatsWriterConsole().write("rollout_stats", 1, stats)
    LogStatsWriterConsole().write(None, 1, stats)
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[2]
        == "    1|rollout_stats  BaseEnvEvents         reward                episode_count         |              50.000"
    )
    assert lines[1] == "=====|" + "=" * 81 + "|" + "=" * 20
    assert lines[5] == "    1|BaseEnvEvents         reward                episode_count         |              50.000"


def test_value_formats():
    assert format_stats_value(3) == "3.000"
    assert format_stats_value(np.int64(2)) == "2.000"
    assert format_stats_value([np.array([1.0, 3.0]), np.array([5.0, 7.0])]) == "[len:2, μ:4.0]"
    assert format_stats_value([]) == "[len:0, μ:nan]"
    assert format_stats_value([{"a": 1}]) == "[len:1]"
    assert format_stats_value("text") == "text"


def test_small_values_keep_their_significant_digits():
    assert format_stats_value(2.5e-4) == "2.500e-04"  # a learning rate, not 0.000
    assert format_stats_value(np.float32(-0.0042)) == "-4.200e-03"
    assert format_stats_value(0.0) == "0.000"
    assert format_stats_value(0.01) == "0.010"
    assert format_stats_value(-186.45) == "-186.450"


def test_file_writer_appends_the_same_rows(tmp_path):
    writer = LogStatsWriterFile(tmp_path / "logs")
    writer.write("train", 12, CRAFTED_STATS)
    writer.write("train", 12, CRAFTED_STATS)
    assert writer.path.read_text(encoding="utf-8") == DOCUMENTED_TABLE * 2


class Recorder(LogStatsWriter):
    def __init__(self):
        self.writes = []
        self.closed = False

    def write(self, path, step, stats):
        self.writes.append((path, step, dict(stats)))

    def close(self):
        self.closed = True


def test_step_column_shows_two_after_two_increments(capsys):
    register_log_stats_writer(LogStatsWriterConsole())
    increment_log_step()
    increment_log_step()
    get_stats_logger("eval").log_stats({LogStatsKey("BaseEnvEvents", "reward", "mean"): 1.0})
    row = capsys.readouterr().out.splitlines()[2]
    assert row.startswith("    2|eval      BaseEnvEvents")


def test_log_stats_reaches_every_writer_until_unregistered():
    first, second = Recorder(), Recorder()
    register_log_stats_writer(first)
    register_log_stats_writer(second)
    stats = {LogStatsKey("BaseEnvEvents", "reward", "mean"): 1.0}
    log_stats(stats, "train")
    unregister_log_stats_writer(first)
    assert first.closed
    log_stats(stats, "eval")
    assert first.writes == [("train", 0, stats)]
    assert second.writes == [("train", 0, stats), ("eval", 0, stats)]
    clear_global_state()
    assert second.closed and get_log_step() == 0


def test_register_rejects_non_writers():
    with pytest.raises(TypeError, match="LogStatsWriterConsole"):
        register_log_stats_writer(print)
