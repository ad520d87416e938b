"""How one event is aggregated: its declarations, checked once and cached per event.

:func:`episode_step_stats` turns the events of a whole episode into step statistics in
batches: one pass sorts the events by event type, then every event type is split into
groups and values and reduced per step at once (most events fire at most once per step,
which needs no per-step bookkeeping).
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import countOf, itemgetter
from typing import Any, Optional

from maze.env.core.events import EventColumns
from maze.env.errors import ConfigurationError, MazeError
from maze.env.log_stats.event_decorators import LogStatsLevel, StatsDefinition, stats_definitions, stats_grouping
from maze.env.log_stats.log_stats import LogStatsGroup, LogStatsKey, LogStatsValue

__all__ = ["EventPlan", "plan_for", "event_method", "reduce_values", "episode_step_stats", "StepStats"]


@dataclass(frozen=True, eq=False)
class EventPlan:
    """The checked statistics declarations of one event, fired through one topic class.

    Attributes:
        topic: Name of the topic class that fires the event.
        event: Name of the event method.
        method: The event method (carries the declarations).
        grouping: Names of the grouping attributes.
        step: Step statistics, in application order (bottom-up).
        episode: Episode statistics, in application order (bottom-up).
        epoch: Epoch statistics, in application order (bottom-up): the order of the output.
        value_name: The one parameter of the event method that is no grouping attribute
            (None: the method declares none or several); events fired with exactly this
            attribute besides the grouping ones are split without per-event work.
        counts_only: Every step statistic counts the step's events (``len``), so the
            events' values are never needed.
    """

    topic: str
    event: str
    method: Callable
    grouping: tuple[str, ...]
    step: tuple[StatsDefinition, ...]
    episode: tuple[StatsDefinition, ...]
    epoch: tuple[StatsDefinition, ...]
    value_name: Optional[str]
    counts_only: bool

    def split(self, attributes: dict[str, Any]) -> tuple[LogStatsGroup, Any]:
        """Splits an event's attributes into its group values and its value.

        The value is the single remaining attribute, or the dict of the remaining attributes
        when there are none or several.
        """
        if not self.grouping:
            if len(attributes) == 1:
                return (), next(iter(attributes.values()))
            return (), attributes
        try:
            groups = tuple(attributes[name] for name in self.grouping)
        except KeyError as error:
            raise ConfigurationError(
                f"the event {self.topic}.{self.event} groups its statistics by {list(self.grouping)} but was fired "
                f"without the attribute {error.args[0]!r} (got {sorted(attributes)}); pass it when firing the event"
            ) from None
        rest = {name: value for name, value in attributes.items() if name not in self.grouping}
        return groups, next(iter(rest.values())) if len(rest) == 1 else rest

    def key(self, definition: StatsDefinition, groups: LogStatsGroup) -> LogStatsKey:
        """The key of the statistic ``definition`` produces for ``groups``."""
        return LogStatsKey(self.topic, self.event, definition.output_name, groups)

    def input_key(self, definition: StatsDefinition, groups: LogStatsGroup) -> LogStatsKey:
        """The key of the lower-level statistic ``definition`` reads for ``groups``."""
        return LogStatsKey(self.topic, self.event, definition.input_name, groups)

    def split_all(self, ordinals: list[int], attributes: list[dict]) -> list[tuple[LogStatsGroup, list[int], list]]:
        """Splits the attributes of many events of this plan into groups and values.

        Args:
            ordinals: Positions of the events (any increasing numbers), one per event.
            attributes: The events' attributes, one dict per event.

        Returns:
            Per group (in order of first appearance): the group values, the ordinals of its
            events and their values (the ordinals stand in for the values when
            ``counts_only``).
        """
        values = ordinals if self.counts_only else self._values(attributes)
        if not self.grouping:
            return [((), ordinals, values)]
        try:
            columns = [list(map(itemgetter(name), attributes)) for name in self.grouping]
        except KeyError:
            for event_attributes in attributes:
                self.split(event_attributes)  # raises the error naming the missing attribute
            raise
        cycle = _cycle_length(columns)
        if cycle:
            return [
                (tuple(column[index] for column in columns), ordinals[index::cycle], values[index::cycle])
                for index in range(cycle)
            ]
        keys = list(zip(*columns, strict=True))
        if len(dict.fromkeys(keys)) == 1:
            return [(keys[0], ordinals, values)]
        positions: defaultdict[LogStatsGroup, list[int]] = defaultdict(list)
        for position, key in enumerate(keys):
            positions[key].append(position)
        return [
            (key, list(map(ordinals.__getitem__, group_positions)), list(map(values.__getitem__, group_positions)))
            for key, group_positions in positions.items()
        ]

    def _values(self, attributes: list[dict]) -> list:
        """The values of many events: see :meth:`split`."""
        if self.value_name is not None and set(map(len, attributes)) == {len(self.grouping) + 1}:
            try:
                # Exactly one attribute besides the grouping ones, and it is value_name.
                return list(map(itemgetter(self.value_name), attributes))
            except KeyError:
                pass
        return [self.split(event_attributes)[1] for event_attributes in attributes]

    def step_stats(self, ordinals: list[int], step_of: Sequence[int], values: list) -> dict[Optional[str], list]:
        """The step statistics of one group of events, by output name (one entry per step with events).

        Args:
            ordinals: The position of each event among all events, increasing.
            step_of: The step of the event at each position (non-decreasing).
            values: The value of each event.
        """
        if len(set(map(step_of.__getitem__, ordinals))) == len(ordinals):  # at most one event per step
            return {definition.output_name: self._reduce_singles(definition, values) for definition in self.step}
        runs: list[list] = []
        previous = None
        for step_index, value in zip(map(step_of.__getitem__, ordinals), values, strict=True):
            if step_index != previous:
                runs.append([])
                previous = step_index
            runs[-1].append(value)
        return {
            definition.output_name: [reduce_values(self, definition, run) for run in runs] for definition in self.step
        }

    def _reduce_singles(self, definition: StatsDefinition, values: list) -> list:
        """The step statistic of steps with one event each (the same as reducing ``[value]`` per step)."""
        reducer = definition.reducer
        if reducer is None:
            return list(values)
        if reducer is len:
            return [1] * len(values)
        try:
            return [reducer([value]) for value in values]
        except Exception:
            return [reduce_values(self, definition, [value]) for value in values]  # raises the descriptive error


_MAX_CYCLE = 64


def _cycle_length(columns: list[list]) -> int:
    """How many groups the events cycle through, when they do in a fixed order (else 0).

    Events fired by the same firers in the same order every step do: the monitoring
    wrapper's action events cycle through the action keys. Their groups are then slices
    ``[index::cycle]``, found without hashing a key per event.

    Args:
        columns: Per grouping attribute, its value in each event.
    """
    head = list(zip(*(column[: _MAX_CYCLE + 1] for column in columns), strict=True))
    try:
        cycle = head.index(head[0], 1)
    except ValueError:
        return 0
    count = len(columns[0])
    if count % cycle or len(set(head[:cycle])) != cycle:
        return 0
    repeats = count // cycle
    return cycle if all(column == column[:cycle] * repeats for column in columns) else 0


_PLANS: dict[tuple[str, Callable], Optional[EventPlan]] = {}


def plan_for(topic: str, method: Callable) -> Optional[EventPlan]:
    """The aggregation plan of ``method`` fired through the topic named ``topic`` (None: no statistics).

    Raises:
        ConfigurationError: A declaration reads a lower-level statistic the event does not declare.
    """
    cache_key = (topic, method)
    if cache_key not in _PLANS:
        _PLANS[cache_key] = _compile(topic, method)
    return _PLANS[cache_key]


def event_method(topic: str, event: str) -> Optional[Callable]:
    """The event method behind statistics named ``(topic, event)`` (None until this process aggregated some).

    Statistics keys hold names only; writers that need an event's declarations (e.g. the
    figures of ``define_plot``) find its method here. Epoch statistics are reduced in the
    process that writes them, so their events are known there.
    """
    for (plan_topic, method), plan in _PLANS.items():
        if plan is not None and plan_topic == topic and plan.event == event:
            return method
    return None


def _compile(topic: str, method: Callable) -> Optional[EventPlan]:
    # Statistics are produced in the order the decorators were applied: bottom-up, the one
    # nearest the method first (the documented tables list `step_max` before `step_mean`).
    definitions = stats_definitions(method)[::-1]
    if not definitions:
        return None
    by_level = {level: tuple(d for d in definitions if d.level == level) for level in LogStatsLevel}
    grouping = stats_grouping(method)
    plan = EventPlan(
        topic=topic,
        event=method.__name__,
        method=method,
        grouping=grouping,
        step=by_level[LogStatsLevel.STEP],
        episode=by_level[LogStatsLevel.EPISODE],
        epoch=by_level[LogStatsLevel.EPOCH],
        value_name=_value_name(method, grouping),
        counts_only=all(definition.reducer is len for definition in by_level[LogStatsLevel.STEP]),
    )
    _check_inputs(plan, plan.episode, plan.step, "episode", "step")
    _check_inputs(plan, plan.epoch, plan.episode, "epoch", "episode")
    return plan


def _value_name(method: Callable, grouping: tuple[str, ...]) -> Optional[str]:
    """The one parameter of ``method`` (besides ``self``) that is no grouping attribute, if there is exactly one."""
    try:
        parameters = list(inspect.signature(method).parameters)[1:]
    except (TypeError, ValueError):
        return None
    rest = [name for name in parameters if name not in grouping]
    return rest[0] if len(rest) == 1 else None


def _check_inputs(
    plan: EventPlan, readers: Sequence[StatsDefinition], sources: Sequence[StatsDefinition], level: str, lower: str
) -> None:
    available = [source.output_name for source in sources]
    for reader in readers:
        if reader.input_name not in available:
            name = reader.output_name or "<unnamed>"
            raise ConfigurationError(
                f"the {level} statistic {name!r} of the event {plan.topic}.{plan.event} reads the {lower} statistic "
                f"{reader.input_name!r}, which the event does not declare (its {lower} statistics: {available}); "
                f"set input_name to one of them or add a define_{lower}_stats declaration"
            )


def reduce_values(plan: EventPlan, definition: StatsDefinition, values: list) -> LogStatsValue:
    """Applies a declaration's reducer to ``values`` (no reducer: the single value, else the list).

    Raises:
        MazeError: The reducer failed; the message names the event, the statistic and the values.
    """
    reducer = definition.reducer
    if reducer is None:
        return values[0] if len(values) == 1 else values
    try:
        return reducer(values)
    except Exception as error:
        name = definition.output_name or "<unnamed>"
        shown = repr(values[:5]) + (" ..." if len(values) > 5 else "")
        raise MazeError(
            f"the {definition.level.name.lower()} statistic {name!r} of the event {plan.topic}.{plan.event} failed: "
            f"its reducer {getattr(reducer, '__name__', reducer)!r} raised {type(error).__name__}: {error} on the "
            f"values {shown}; {_fix_for(plan, values)}"
        ) from error


def _fix_for(plan: EventPlan, values: list) -> str:
    """How to fix a failed reduction: events whose value is an attribute dict get the rule and the ways out."""
    dicts = [value for value in values if isinstance(value, dict)]
    if not dicts:
        return "fix the reducer or the values the event is fired with"
    event = f"{plan.topic}.{plan.event}"
    names = sorted({name for value in dicts for name in value})
    if not names:
        return (
            f"{event} is fired without attributes (besides its grouping ones), so its value is an empty dict: "
            "count such events with define_step_stats(len)"
        )
    return (
        f"{event} is fired with the attributes {names} (besides its grouping ones), and an event's value is its "
        "attribute only when it has exactly one, else the dict of its attributes; give the statistic one number "
        f"per event: fire one event per quantity (e.g. {plan.event}_{names[0]}({names[0]}=...)), declare the "
        "attributes that only label the event (ids, kinds) with define_stats_grouping, or use a reducer that "
        "reads the dicts"
    )


StepStats = dict[tuple[EventPlan, LogStatsGroup], dict[Optional[str], list]]
"""Step statistics by event plan and group, then by output name: one entry per step in which the event fired."""


def episode_step_stats(events: EventColumns, step_of: Sequence[int], only_episode_stats: bool = True) -> StepStats:
    """The step statistics of the events of several steps (an episode), by event and group.

    Args:
        events: The events of the steps, in step order.
        step_of: The step of each event (non-decreasing).
        only_episode_stats: Skip events without episode statistics (no statistic would read
            their step statistics at episode end).

    Returns:
        The step statistics, in the order the events (and groups) first fired.
    """
    firsts: list[tuple[int, EventPlan, LogStatsGroup]] = []
    parts: dict[tuple[EventPlan, LogStatsGroup], list[tuple[list[int], list]]] = {}
    for topic, method, ordinals in _events_by_type(events):
        plan = plan_for(topic.__name__, method)
        if plan is None or (only_episode_stats and not plan.episode):
            continue
        attributes = list(map(events.attributes.__getitem__, ordinals))
        for group, group_ordinals, values in plan.split_all(ordinals, attributes):
            firsts.append((group_ordinals[0], plan, group))
            # Several parts: topic classes of the same name fired the same event method.
            parts.setdefault((plan, group), []).append((group_ordinals, values))
    stats: StepStats = {}
    for _, plan, group in sorted(firsts, key=itemgetter(0)):
        if (plan, group) not in stats:
            group_ordinals, values = _merged(parts[(plan, group)])
            stats[(plan, group)] = plan.step_stats(group_ordinals, step_of, values)
    return stats


def _events_by_type(events: EventColumns) -> Iterator[tuple[type, Callable, list[int]]]:
    """``(topic, method, positions in events)`` of each event type, in order of first appearance."""
    positions: defaultdict[Callable, list[int]] = defaultdict(list)
    for position, method in enumerate(events.methods):
        positions[method].append(position)
    topics = events.topics
    for method, ordinals in positions.items():
        topic = topics[ordinals[0]]
        if countOf(map(topics.__getitem__, ordinals), topic) == len(ordinals):
            yield topic, method, ordinals
        else:  # one method fired through several topic classes (e.g. subclasses)
            for topic in dict.fromkeys(map(topics.__getitem__, ordinals)):
                yield topic, method, [ordinal for ordinal in ordinals if topics[ordinal] is topic]


def _merged(parts: list[tuple[list[int], list]]) -> tuple[list[int], list]:
    """Ordinals and values of several parts, merged in ordinal order."""
    if len(parts) == 1:
        return parts[0]
    pairs = sorted(
        chain.from_iterable(zip(ordinals, values, strict=True) for ordinals, values in parts), key=itemgetter(0)
    )
    return [ordinal for ordinal, _ in pairs], [value for _, value in pairs]
