"""The batched episode aggregation matches the per-step definition of the statistics."""

from __future__ import annotations

import random

import numpy as np
import pytest
from maze.env import MazeError
from maze.env.core.events import EventRecord
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.event_decorators import (
    define_episode_stats,
    define_epoch_stats,
    define_stats_grouping,
    define_step_stats,
    histogram,
    stats_definitions,
    stats_grouping,
)
from maze.env.log_stats.log_stats import LogStatsKey


class MillEvents:
    @define_epoch_stats(np.mean)
    @define_episode_stats(sum)
    @define_step_stats(len)
    def jammed(self, minutes: int):
        """Counted per step."""

    @define_epoch_stats(max, input_name="peak", output_name="peak")
    @define_episode_stats(np.mean, output_name="mean")
    @define_episode_stats(max, output_name="peak")
    @define_step_stats(max)
    def load(self, value: float):
        """The highest load of a step."""

    @define_epoch_stats(sum)
    @define_episode_stats(sum)
    @define_step_stats(sum)
    @define_stats_grouping("machine")
    def produced(self, machine: str, count: int):
        """Summed per machine."""

    @define_epoch_stats(histogram)
    @define_episode_stats(histogram)
    @define_step_stats(None)
    @define_stats_grouping("line", "tool")
    def used(self, line: str, tool: str, value: int):
        """A histogram per line and tool."""

    def chatter(self, value: int):
        """No statistics."""


class NightShiftEvents(MillEvents):
    """Fires the inherited events under its own name."""


def reference_episode(steps: list[list[EventRecord]]) -> dict:
    """The episode statistics computed step by step, straight from the declarations."""
    inputs: dict = {}
    for events in steps:
        per_step: dict = {}
        for topic, method, attributes in events:
            if not stats_definitions(method):
                continue
            grouping = stats_grouping(method)
            rest = {name: value for name, value in attributes.items() if name not in grouping}
            value = next(iter(rest.values())) if len(rest) == 1 else rest
            group = tuple(attributes[name] for name in grouping)
            per_step.setdefault((topic.__name__, method, group), []).append(value)
        for (topic, method, group), values in per_step.items():
            by_name = inputs.setdefault((topic, method, group), {})
            for definition in reversed(stats_definitions(method)):
                if definition.level.name == "STEP":
                    reduced = (values[0] if len(values) == 1 else values) if definition.reducer is None else None
                    reduced = definition.reducer(values) if definition.reducer is not None else reduced
                    by_name.setdefault(definition.output_name, []).append(reduced)
    episode = {}
    for (topic, method, group), by_name in inputs.items():
        for definition in reversed(stats_definitions(method)):
            if definition.level.name == "EPISODE":
                key = LogStatsKey(topic, method.__name__, definition.output_name, group)
                episode[key] = definition.reducer(by_name[definition.input_name])
    return episode


def random_step(rng: random.Random) -> list[EventRecord]:
    menu = [
        lambda topic: EventRecord(topic, MillEvents.jammed, {"minutes": rng.randint(1, 9)}),
        lambda topic: EventRecord(topic, MillEvents.load, {"value": rng.random()}),
        lambda topic: EventRecord(
            topic, MillEvents.produced, {"machine": rng.choice("ab"), "count": rng.randint(0, 3)}
        ),
        lambda topic: EventRecord(
            topic, MillEvents.used, {"line": rng.choice("xy"), "tool": rng.choice("uv"), "value": rng.randint(0, 5)}
        ),
        lambda topic: EventRecord(
            topic, MillEvents.used, {"line": "x", "tool": "u", "value": 1, "note": rng.choice(["ok", "late"])}
        ),
        lambda topic: EventRecord(topic, MillEvents.chatter, {"value": 1}),
    ]
    topics = [MillEvents, MillEvents, MillEvents, NightShiftEvents]
    return [rng.choice(menu)(rng.choice(topics)) for _ in range(rng.randint(0, 5))]


@pytest.mark.parametrize("seed", range(20))
def test_batched_episode_statistics_equal_the_step_by_step_definition(seed: int):
    rng = random.Random(seed)
    steps = [random_step(rng) for _ in range(rng.randint(1, 40))]
    aggregator = LogStatsAggregator()
    if seed % 2:
        for events in steps:
            aggregator.add_step(events)
    else:
        ends = np.cumsum([len(events) for events in steps]).tolist()
        aggregator.add_steps([event for events in steps for event in events], ends)
    episode = aggregator.end_episode()
    expected = reference_episode(steps)
    assert list(episode) == list(expected)
    for key, value in expected.items():
        assert episode[key] == pytest.approx(value) if isinstance(value, float) else episode[key] == value


CYCLE = [("x", "u"), ("x", "v"), ("y", "u")]


def cycling_step(rng: random.Random, groups: list[tuple[str, str]]) -> list[EventRecord]:
    """Random other events, then one ``used`` event per group in a fixed order (as monitoring fires actions)."""
    used = [
        EventRecord(MillEvents, MillEvents.used, {"line": line, "tool": tool, "value": rng.randint(0, 5)})
        for line, tool in groups
    ]
    others = [event for event in random_step(rng) if event.interface_method is not MillEvents.used]
    return others[:1] + used


@pytest.mark.parametrize(
    "last_groups",
    [CYCLE, CYCLE[:2], CYCLE[::-1], CYCLE + CYCLE[:1]],
    ids=["cycle", "last-step-short", "last-step-reordered", "last-step-repeats"],
)
def test_events_cycling_through_groups_give_the_step_by_step_statistics(last_groups):
    rng = random.Random(7)
    steps = [cycling_step(rng, CYCLE) for _ in range(30)] + [cycling_step(rng, last_groups)]
    aggregator = LogStatsAggregator()
    aggregator.add_steps([event for events in steps for event in events], np.cumsum(list(map(len, steps))).tolist())
    episode = aggregator.end_episode()
    expected = reference_episode(steps)
    assert list(episode) == list(expected)
    assert all(episode[key] == value for key, value in expected.items())
    fired_x_u = [
        attributes["value"]
        for events in steps
        for _, method, attributes in events
        if method is MillEvents.used and (attributes["line"], attributes["tool"]) == ("x", "u")
    ]
    assert episode[LogStatsKey("MillEvents", "used", None, ("x", "u"))] == fired_x_u


def test_a_failing_step_reducer_on_single_events_names_the_statistic():
    aggregator = LogStatsAggregator()
    aggregator.add_step([EventRecord(MillEvents, MillEvents.produced, {"machine": "a", "count": "three"})])
    with pytest.raises(MazeError, match=r"step statistic '<unnamed>' of the event MillEvents\.produced failed"):
        aggregator.end_episode()


def test_histogram_flattens_lists_and_copies_plain_values():
    values = [1, 2]
    assert histogram(values) == [1, 2] and histogram(values) is not values
    assert histogram([1, [2, 3], (4,)]) == [1, 2, 3, 4]
