"""Raw event logs: every event with all its attributes, as tab-separated text.

Layout written by :class:`LogEventsWriterTSV`:

* **One file per event type**, named ``<TopicClass>.<event method>.tsv`` inside the log
  directory, e.g. ``event_logs/CuttingEvents.invalid_cut.tsv`` or
  ``event_logs/BaseEnvEvents.reward.tsv``. ``TopicClass`` is the topic class's
  ``__name__``, so two topic classes of the same name share a file.
* The first line is the header: ``episode_id``, ``env_time`` (the step within the episode,
  ``StepEventLog.env_time``), then the event's attributes. The attribute columns are the
  parameters the event method declares (in declaration order, without ``self``); methods
  taking ``**kwargs`` add the names of the extra attributes seen when the file is created,
  sorted.
* One line per fired event, in firing order. Files are appended to, episode after
  episode; an existing file is reused when its header matches.

Cell encoding (so that :func:`read_event_log_tsv` gives the values back):

* ``episode_id`` is written as is and ``env_time`` as a decimal integer.
* Every attribute is one JSON value: numbers (floats exactly, ``NaN``/``Infinity``
  included), bools, None, strings (quoted; tabs and newlines escaped), lists and dicts with
  string keys. NumPy scalars and arrays are written as Python numbers and (nested) lists;
  tuples become lists. Any other object is written as the JSON string of its ``str()``
  (lossy: it reads back as that string).
* An empty cell means the event was fired without that attribute (an optional parameter
  left out); the reader leaves such attributes out of the row.

Several processes may append to the same files: each episode's rows of one file are
written with a single ``write`` call in append mode.
"""

from __future__ import annotations

import inspect
import json
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import numpy as np
from maze.env.core.events import EventRecord
from maze.env.errors import MazeError
from maze.env.log_events.episode_event_log import EpisodeEventLog

__all__ = [
    "LogEventsWriter",
    "LogEventsWriterTSV",
    "EventRow",
    "EventLogFormatError",
    "read_event_log_tsv",
    "event_log_file_name",
]

_FIXED_COLUMNS = ("episode_id", "env_time")


class EventLogFormatError(MazeError, ValueError):
    """An event log file does not have the layout :class:`LogEventsWriterTSV` writes."""


@dataclass
class EventRow:
    """One event as stored in (and read back from) an event log file.

    Attributes:
        episode_id: Id of the episode the event was fired in.
        env_time: Env time (step within the episode) of the event.
        attributes: The event's attributes by name.
    """

    episode_id: str
    env_time: int
    attributes: dict[str, Any] = field(default_factory=dict)


class LogEventsWriter(ABC):
    """Writes out the event log of each finished episode (see ``LogEventsWriterRegistry``)."""

    @abstractmethod
    def write(self, episode_event_log: EpisodeEventLog) -> None:
        """Writes all events of one episode."""


def event_log_file_name(interface_class: type, interface_method: Callable) -> str:
    """The file name of an event type: ``<TopicClass>.<event method>.tsv``."""
    return f"{interface_class.__name__}.{interface_method.__name__}.tsv"


class LogEventsWriterTSV(LogEventsWriter):
    """Writes every event into the tab-separated file of its event type (layout: module doc).

    Args:
        log_dir: Directory of the files; created when the first event is written.
    """

    def __init__(self, log_dir: Union[str, Path] = "event_logs") -> None:
        self.log_dir = Path(log_dir)
        self._columns: dict[Path, tuple[str, ...]] = {}

    def write(self, episode_event_log: EpisodeEventLog) -> None:
        """Appends the rows of every event of the episode to the files of their event types.

        Raises:
            EventLogFormatError: An existing file has a different header (its event
                type changed; use a fresh log directory), or an event carries an
                attribute its file has no column for.
            ValueError: An event attribute is named ``episode_id`` or ``env_time``.
        """
        episode_id = str(episode_event_log.episode_id)
        if "\t" in episode_id or "\n" in episode_id:
            raise ValueError(f"episode id {episode_id!r} contains a tab or newline; it cannot be a TSV cell")
        events_by_type: dict[tuple[type, Callable], list[tuple[int, EventRecord]]] = defaultdict(list)
        for step_event_log in episode_event_log.step_event_logs:
            for event in step_event_log.events:
                events_by_type[event.interface_class, event.interface_method].append((step_event_log.env_time, event))
        for (interface_class, interface_method), timed_events in events_by_type.items():
            path = self.log_dir / event_log_file_name(interface_class, interface_method)
            columns = self._columns_of(path, interface_method, [event for _, event in timed_events])
            lines = [_format_row(path, columns, episode_id, env_time, event) for env_time, event in timed_events]
            with path.open("a", encoding="utf-8", newline="\n") as file:
                file.write("".join(lines))

    def _columns_of(self, path: Path, interface_method: Callable, events: list[EventRecord]) -> tuple[str, ...]:
        """The attribute columns of ``path``, writing the header when the file is new."""
        if path in self._columns:
            return self._columns[path]
        columns = _attribute_columns(interface_method, events)
        header = "\t".join(_FIXED_COLUMNS + columns) + "\n"
        if path.is_file() and path.stat().st_size > 0:
            with path.open(encoding="utf-8", newline="\n") as file:
                existing = file.readline()
            if existing != header:
                raise EventLogFormatError(
                    f"event log file {path} has the header {existing.rstrip()!r} but the event "
                    f"{interface_method.__qualname__} now has the columns {header.rstrip()!r}; "
                    "write to a fresh log directory"
                )
        else:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8", newline="\n") as file:
                file.write(header)
        self._columns[path] = columns
        return columns


def _attribute_columns(interface_method: Callable, events: Iterable[EventRecord]) -> tuple[str, ...]:
    """Declared parameters of the event method, plus the sorted extra ones for ``**kwargs`` methods."""
    declared: list[str] = []
    takes_kwargs = False
    for position, parameter in enumerate(inspect.signature(interface_method).parameters.values()):
        if parameter.kind is parameter.VAR_KEYWORD:
            takes_kwargs = True
        elif parameter.kind is not parameter.VAR_POSITIONAL and not (position == 0 and parameter.name == "self"):
            declared.append(parameter.name)
    if takes_kwargs:
        extra = {name for event in events for name in event.attributes} - set(declared)
        declared.extend(sorted(extra))
    reserved = set(declared) & set(_FIXED_COLUMNS)
    if reserved:
        raise ValueError(
            f"event {interface_method.__qualname__} has an attribute named {sorted(reserved)}; these names are "
            "reserved for the event log columns, rename the attribute"
        )
    return tuple(declared)


def _format_row(path: Path, columns: tuple[str, ...], episode_id: str, env_time: int, event: EventRecord) -> str:
    unknown = set(event.attributes) - set(columns)
    if unknown:
        raise EventLogFormatError(
            f"event {event.interface_method.__qualname__} was fired with the attributes {sorted(unknown)}, which "
            f"its log file {path} has no columns for (columns: {list(columns)}); declare them as parameters of "
            "the event method"
        )
    attributes = event.attributes
    cells = [_encode(attributes[name]) if name in attributes else "" for name in columns]
    return "\t".join([episode_id, str(int(env_time)), *cells]) + "\n"


def _encode(value: Any) -> str:
    return json.dumps(_plain(value), ensure_ascii=False, default=str)


def _plain(value: Any) -> Any:
    """NumPy values as Python numbers/lists; tuples as lists."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def read_event_log_tsv(path: Union[str, Path]) -> list[EventRow]:
    """Reads an event log file written by :class:`LogEventsWriterTSV`.

    Args:
        path: The ``.tsv`` file of one event type.

    Returns:
        One :class:`EventRow` per line, in file order; attributes decoded from JSON.

    Raises:
        FileNotFoundError: ``path`` does not exist.
        EventLogFormatError: The header or a line is malformed; the message names the
            file and the line.
    """
    path = Path(path)
    with path.open(encoding="utf-8", newline="\n") as file:
        lines = file.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise EventLogFormatError(f"event log file {path} is empty; expected a header line starting with episode_id")
    header = lines[0].split("\t")
    if tuple(header[:2]) != _FIXED_COLUMNS:
        raise EventLogFormatError(
            f"event log file {path}: the header must start with 'episode_id<TAB>env_time', got {lines[0]!r}; "
            "is it a file written by LogEventsWriterTSV?"
        )
    columns = header[2:]
    return [_parse_row(path, number, line, columns) for number, line in enumerate(lines[1:], start=2)]


def _parse_row(path: Path, number: int, line: str, columns: list[str]) -> EventRow:
    cells = line.split("\t")
    if len(cells) != len(columns) + 2:
        raise EventLogFormatError(
            f"event log file {path}, line {number}: expected {len(columns) + 2} tab-separated cells "
            f"(episode_id, env_time, {', '.join(columns) or 'no attributes'}), got {len(cells)}"
        )
    episode_id, env_time, *values = cells
    try:
        time = int(env_time)
    except ValueError:
        raise EventLogFormatError(
            f"event log file {path}, line {number}: env_time must be an integer, got {env_time!r}"
        ) from None
    attributes = {}
    for name, cell in zip(columns, values, strict=True):
        if cell == "":
            continue
        try:
            attributes[name] = json.loads(cell)
        except json.JSONDecodeError as error:
            raise EventLogFormatError(
                f"event log file {path}, line {number}: the value of {name!r} is not valid JSON ({error.msg}): {cell!r}"
            ) from None
    return EventRow(episode_id, time, attributes)
