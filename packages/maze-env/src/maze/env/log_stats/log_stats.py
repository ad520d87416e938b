"""Data types of statistics: keys naming one statistic, values, and stats dicts.

A statistic is named by the event it summarizes (topic class name and event method
name), the name of the statistic (a declaration's ``output_name``, None for the unnamed
one) and the values of the event's grouping attributes. Keys hold only strings and plain
values, so statistics pickle and travel between processes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, Optional, Union

import numpy as np

__all__ = [
    "LogStatsKey",
    "LogStatsGroup",
    "LogStatsValue",
    "LogStats",
    "event_names",
]

LogStatsGroup = tuple[Any, ...]
"""Values of an event's grouping attributes, in the order they were declared (empty: no grouping)."""

LogStatsValue = Union[int, float, np.number, np.ndarray, list, dict]
"""A statistic: a number for scalar statistics, a list for histograms, anything a reducer returns."""


class LogStatsKey(NamedTuple):
    """Names one statistic of one event.

    Attributes:
        topic: Name of the event topic class that fired the event, e.g. ``"BaseEnvEvents"``.
        event: Name of the event method, e.g. ``"reward"``.
        name: The statistic's ``output_name`` (None: the unnamed statistic).
        groups: Values of the grouping attributes, e.g. ``("substep_0", "piece_idx")``.
    """

    topic: str
    event: str
    name: Optional[str] = None
    groups: LogStatsGroup = ()

    @property
    def label(self) -> str:
        """The statistic's name and group values joined by ``/`` (empty when it has neither)."""
        parts = [] if self.name is None else [self.name]
        parts.extend(str(value) for value in self.groups)
        return "/".join(parts)


LogStats = dict[LogStatsKey, LogStatsValue]
"""Statistics by key, in the order they were produced."""


def event_names(event: Callable) -> tuple[str, str]:
    """``(topic class name, event name)`` of an event method such as ``BaseEnvEvents.reward``.

    Raises:
        TypeError: ``event`` is not a method defined in a class.
    """
    qualified = getattr(event, "__qualname__", "")
    owner, _, name = qualified.rpartition(".")
    topic = owner.rpartition(".")[2]
    if not topic or topic == "<locals>":
        raise TypeError(f"expected an event method of a topic class such as BaseEnvEvents.reward, got {event!r}")
    return topic, name
