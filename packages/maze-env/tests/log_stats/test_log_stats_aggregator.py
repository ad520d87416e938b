"""LogStatsAggregator: decorator semantics, grouping, missing events, cumulative stats, merging."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from maze.env import MazeError
from maze.env.core.events import EventRecord
from maze.env.errors import ConfigurationError
from maze.env.log_stats.aggregator import LogStatsAggregator, step_stats
from maze.env.log_stats.base_events import BaseEnvEvents
from maze.env.log_stats.event_decorators import (
    LogStatsLevel,
    define_episode_stats,
    define_epoch_stats,
    define_stats_grouping,
    define_step_stats,
)
from maze.env.log_stats.log_stats import LogStatsKey, event_names


class StockEvents:
    """Topic declared like the documented inventory events."""

    @define_epoch_stats(np.mean, output_name="mean_episode_total")
    @define_episode_stats(sum)
    @define_step_stats(len)
    def piece_replenished(self):
        """A raw piece arrived."""

    @define_epoch_stats(np.mean, input_name="step_mean", output_name="step_mean")
    @define_epoch_stats(max, input_name="step_max", output_name="step_max")
    @define_episode_stats(np.mean, output_name="step_mean")
    @define_episode_stats(max, output_name="step_max")
    @define_step_stats(None)
    def pieces_in_inventory(self, value: int):
        """Pieces currently stored."""

    @define_epoch_stats(sum)
    @define_episode_stats(sum)
    @define_step_stats(sum)
    @define_stats_grouping("machine")
    def produced(self, machine: str, count: int):
        """Units produced by a machine."""

    def undeclared(self, value: int):
        """No statistics: the aggregator ignores it."""


def fire(method, **attributes) -> EventRecord:
    return EventRecord(StockEvents, method, attributes)


def run_episode(aggregator: LogStatsAggregator, steps: list[list[EventRecord]]) -> dict:
    for events in steps:
        aggregator.add_step(events)
    return aggregator.end_episode()


def test_documented_inventory_stack_yields_exactly_step_max_and_step_mean():
    aggregator = LogStatsAggregator()
    run_episode(aggregator, [[fire(StockEvents.pieces_in_inventory, value=v)] for v in (1, 2, 3)])
    run_episode(aggregator, [[fire(StockEvents.pieces_in_inventory, value=v)] for v in (5, 9)])
    stats = aggregator.reduce()
    assert list(stats) == [
        LogStatsKey("StockEvents", "pieces_in_inventory", "step_max"),
        LogStatsKey("StockEvents", "pieces_in_inventory", "step_mean"),
    ]
    assert stats[LogStatsKey("StockEvents", "pieces_in_inventory", "step_max")] == 9
    assert stats[LogStatsKey("StockEvents", "pieces_in_inventory", "step_mean")] == pytest.approx((2 + 7) / 2)


def test_output_name_names_the_epoch_statistic_and_len_counts_per_step():
    aggregator = LogStatsAggregator()
    replenished = fire(StockEvents.piece_replenished)
    episode = run_episode(aggregator, [[replenished, replenished], [], [replenished]])
    assert episode == {LogStatsKey("StockEvents", "piece_replenished"): 3}
    run_episode(aggregator, [[replenished]])
    assert aggregator.reduce() == {LogStatsKey("StockEvents", "piece_replenished", "mean_episode_total"): 2.0}


def test_events_that_never_fired_in_an_episode_produce_no_episode_statistic():
    aggregator = LogStatsAggregator()
    replenished = fire(StockEvents.piece_replenished)
    run_episode(aggregator, [[replenished]] * 3)
    quiet = run_episode(aggregator, [[fire(StockEvents.pieces_in_inventory, value=1)]])
    assert LogStatsKey("StockEvents", "piece_replenished") not in quiet
    # The mean runs over the episodes in which the event fired only.
    assert aggregator.reduce()[LogStatsKey("StockEvents", "piece_replenished", "mean_episode_total")] == 3.0
    run_episode(aggregator, [[fire(StockEvents.pieces_in_inventory, value=1)]])
    assert not any(key.event == "piece_replenished" for key in aggregator.reduce())


def test_grouping_splits_statistics_by_attribute_value_sorted():
    aggregator = LogStatsAggregator()
    run_episode(
        aggregator,
        [
            [fire(StockEvents.produced, machine="saw", count=2), fire(StockEvents.produced, machine="drill", count=1)],
            [fire(StockEvents.produced, machine="saw", count=3)],
        ],
    )
    stats = aggregator.reduce()
    assert list(stats.items()) == [
        (LogStatsKey("StockEvents", "produced", None, ("drill",)), 1),
        (LogStatsKey("StockEvents", "produced", None, ("saw",)), 5),
    ]
    assert LogStatsKey("StockEvents", "produced", None, ("saw",)).label == "saw"


def test_undeclared_events_are_ignored_and_step_stats_pass_values_through():
    events = [fire(StockEvents.undeclared, value=1), fire(StockEvents.pieces_in_inventory, value=4)]
    assert step_stats(events) == {LogStatsKey("StockEvents", "pieces_in_inventory"): 4}
    twice = [fire(StockEvents.pieces_in_inventory, value=4), fire(StockEvents.pieces_in_inventory, value=6)]
    assert step_stats(twice) == {LogStatsKey("StockEvents", "pieces_in_inventory"): [4, 6]}


def test_reward_rows_and_cumulative_totals_across_epochs():
    aggregator = LogStatsAggregator()
    for rewards in ([1.0, 1.0, 1.0], [2.0, 0.0]):
        aggregator.add_step_stats(BaseEnvEvents, BaseEnvEvents.reward, rewards)
        aggregator.end_episode()
    first = {key.name: value for key, value in aggregator.reduce().items()}
    assert list(first) == [
        "median_step_count",
        "mean_step_count",
        "total_step_count",
        "total_episode_count",
        "episode_count",
        "std",
        "mean",
        "min",
        "max",
    ]
    assert first["episode_count"] == 2 and first["total_step_count"] == 5 and first["mean"] == 2.5
    assert first["min"] == 2.0 and first["max"] == 3.0 and first["median_step_count"] == 2.5
    aggregator.add_step_stats(BaseEnvEvents, BaseEnvEvents.reward, [1.0] * 4)
    aggregator.end_episode()
    second = {key.name: value for key, value in aggregator.reduce().items()}
    assert second["episode_count"] == 1 and second["total_episode_count"] == 3
    assert second["total_step_count"] == 9 and second["mean_step_count"] == 4


def test_get_stats_per_level():
    aggregator = LogStatsAggregator()
    assert aggregator.get_stats(LogStatsLevel.EPOCH) == {}
    aggregator.add_step([fire(StockEvents.pieces_in_inventory, value=7)])
    assert aggregator.get_stats(LogStatsLevel.STEP) == {LogStatsKey("StockEvents", "pieces_in_inventory"): 7}
    aggregator.end_episode()
    assert (
        aggregator.get_stats(LogStatsLevel.EPISODE)[LogStatsKey("StockEvents", "pieces_in_inventory", "step_max")] == 7
    )
    epoch = aggregator.reduce()
    assert aggregator.get_stats(LogStatsLevel.EPOCH) == epoch and epoch


def test_taken_episode_stats_pickle_and_merge_into_another_aggregator():
    workers = [LogStatsAggregator() for _ in range(3)]
    for index, worker in enumerate(workers):
        for _ in range(index + 1):
            worker.add_step_stats(BaseEnvEvents, BaseEnvEvents.reward, [1.0] * 10)
            worker.add_step([fire(StockEvents.piece_replenished)])
            worker.end_episode()
    merged = LogStatsAggregator()
    for worker in workers:
        merged.add_episode_stats(pickle.loads(pickle.dumps(worker.take_episode_stats())))
        assert worker.episode_count == 0
    assert merged.episode_count == 6
    stats = merged.reduce()
    assert stats[LogStatsKey("BaseEnvEvents", "reward", "episode_count")] == 6
    assert stats[LogStatsKey("BaseEnvEvents", "reward", "total_step_count")] == 60
    assert stats[LogStatsKey("StockEvents", "piece_replenished", "mean_episode_total")] == 1.0


def test_declaration_reading_an_undeclared_statistic_is_named():
    class BrokenEvents:
        @define_epoch_stats(np.mean, input_name="nope")
        @define_episode_stats(sum)
        @define_step_stats(len)
        def broken(self):
            """Reads a statistic that does not exist."""

    aggregator = LogStatsAggregator()
    aggregator.add_step([EventRecord(BrokenEvents, BrokenEvents.broken, {})])
    with pytest.raises(ConfigurationError, match=r"BrokenEvents\.broken reads the episode statistic 'nope'"):
        aggregator.end_episode()


def test_grouped_event_fired_without_its_group_attribute_is_named():
    aggregator = LogStatsAggregator()
    aggregator.add_step([fire(StockEvents.produced, count=1)])
    with pytest.raises(ConfigurationError, match="without the attribute 'machine'"):
        aggregator.end_episode()


def test_failing_reducer_names_event_and_statistic():
    aggregator = LogStatsAggregator()
    aggregator.add_step([fire(StockEvents.pieces_in_inventory, value="many")])
    aggregator.add_step([fire(StockEvents.pieces_in_inventory, value=3)])
    with pytest.raises(MazeError, match=r"'step_max' of the event StockEvents\.pieces_in_inventory failed"):
        aggregator.end_episode()


class DeliveryEvents:
    """Events whose value is an attribute dict (two attributes, or none) under numeric reducers."""

    @define_episode_stats(sum)
    @define_step_stats(sum)
    def delivered(self, parcels: int, weight: float):
        """Two attributes: the step value is {"parcels": ..., "weight": ...}."""

    @define_episode_stats(sum)
    @define_step_stats(max)
    def arrived(self):
        """No attribute: the step value is {}."""


def test_an_event_with_two_attributes_under_sum_names_the_rule_and_the_fix():
    aggregator = LogStatsAggregator()
    aggregator.add_step([EventRecord(DeliveryEvents, DeliveryEvents.delivered, {"parcels": 2, "weight": 1.5})])
    with pytest.raises(MazeError) as raised:
        aggregator.end_episode()
    message = str(raised.value)
    assert "the step statistic '<unnamed>' of the event DeliveryEvents.delivered failed" in message
    assert "fired with the attributes ['parcels', 'weight']" in message
    assert "else the dict of its attributes" in message
    assert "delivered_parcels(parcels=...)" in message and "define_stats_grouping" in message


def test_an_event_without_attributes_under_a_numeric_reducer_is_told_to_count():
    aggregator = LogStatsAggregator()
    aggregator.add_step(
        [EventRecord(DeliveryEvents, DeliveryEvents.arrived, {})]
    )  # max([{}]) passes; the episode's sum fails
    with pytest.raises(
        MazeError, match=r"episode statistic .*DeliveryEvents\.arrived is fired without attributes.*len"
    ):
        aggregator.end_episode()


def test_add_step_stats_rejects_grouped_events():
    with pytest.raises(ConfigurationError, match="add_step_stats"):
        LogStatsAggregator().add_step_stats(BaseEnvEvents, BaseEnvEvents.kpi, [1.0])


def test_event_names():
    assert event_names(BaseEnvEvents.reward) == ("BaseEnvEvents", "reward")
    with pytest.raises(TypeError, match="event method"):
        event_names(len)
