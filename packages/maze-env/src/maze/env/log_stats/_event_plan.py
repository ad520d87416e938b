"""How one event is aggregated: its declarations, checked once and cached per event."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from maze.env.core.events import EventRecord
from maze.env.errors import ConfigurationError, MazeError
from maze.env.log_stats.event_decorators import LogStatsLevel, StatsDefinition, stats_definitions, stats_grouping
from maze.env.log_stats.log_stats import LogStatsGroup, LogStatsKey, LogStatsValue

__all__ = ["EventPlan", "plan_for", "reduce_values", "step_values", "StepValues"]


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
    """

    topic: str
    event: str
    method: Callable
    grouping: tuple[str, ...]
    step: tuple[StatsDefinition, ...]
    episode: tuple[StatsDefinition, ...]
    epoch: tuple[StatsDefinition, ...]

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


def _compile(topic: str, method: Callable) -> Optional[EventPlan]:
    # Statistics are produced in the order the decorators were applied: bottom-up, the one
    # nearest the method first (the documented tables list `step_max` before `step_mean`).
    definitions = stats_definitions(method)[::-1]
    if not definitions:
        return None
    by_level = {level: tuple(d for d in definitions if d.level == level) for level in LogStatsLevel}
    plan = EventPlan(
        topic=topic,
        event=method.__name__,
        method=method,
        grouping=stats_grouping(method),
        step=by_level[LogStatsLevel.STEP],
        episode=by_level[LogStatsLevel.EPISODE],
        epoch=by_level[LogStatsLevel.EPOCH],
    )
    _check_inputs(plan, plan.episode, plan.step, "episode", "step")
    _check_inputs(plan, plan.epoch, plan.episode, "epoch", "episode")
    return plan


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
            f"values {shown}; fix the reducer or the values the event is fired with"
        ) from error


StepValues = dict[tuple[EventPlan, LogStatsGroup], list]
"""The values of one step's events, by event plan and group."""


def step_values(events: Sequence[EventRecord]) -> StepValues:
    """Collects the values of one step's events that declare statistics, by event and group."""
    collected: StepValues = {}
    for record in events:
        plan = plan_for(record.interface_class.__name__, record.interface_method)
        if plan is None:
            continue
        groups, value = plan.split(record.attributes)
        collected.setdefault((plan, groups), []).append(value)
    return collected
