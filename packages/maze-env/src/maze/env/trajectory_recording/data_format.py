"""The data-only trajectory format: one episode record as plain arrays and JSON, by a fixed schema.

A file (``<episode id>.traj.npz``, see :mod:`~maze.env.trajectory_recording.data_container`)
holds one JSON tree::

    {"format": "maze-trajectory", "version": 1,
     "record": "state" | "spaces",          # which schema: StateTrajectoryRecord / SpacesTrajectoryRecord
     "id": "<episode id>", "steps": T,
     "columns": {...},                      # the step records, field by field (one column per field)
     "renderer": <value> }                  # state records only

The *reader* knows the record classes and their fields; the file only names the schema
(``"state"`` or ``"spaces"``). State records have the columns of :class:`StateRecord`'s fields;
``step_event_log`` is stored flat (env times, event counts per step, and the events' topic and
method names, resolved through the allow-list, plus their attributes). Spaces records store
their sub-steps flat, with ``"substeps"``: the sub-step count of each env step, and the columns
of :class:`SpacesRecord`'s fields (``actor_id`` as ``step_key`` and ``agent_id``). Values in
columns are encoded by :mod:`~maze.env.trajectory_recording.data_values`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import fields
from typing import Any, BinaryIO

from maze.env.core.actor import ActorID
from maze.env.core.events import EventRecord
from maze.env.log_events.step_event_log import StepEventLog
from maze.env.trajectory_recording.data_container import DEFAULT_LIMITS, ReadLimits, read_container, write_container
from maze.env.trajectory_recording.data_values import (
    TrajectoryDataError,
    TrajectoryDecodeError,
    ValueDecoder,
    ValueEncoder,
    class_name,
)
from maze.env.trajectory_recording.records import StateRecord, StateTrajectoryRecord, TrajectoryRecord
from maze.env.trajectory_recording.safe_unpickler import PICKLE_ALLOW_LIST
from maze.env.trajectory_recording.spaces_records import SpacesRecord, SpacesTrajectoryRecord, StructuredSpacesRecord

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "record_to_data", "write_data_trajectory", "read_data_trajectory"]

FORMAT_NAME = "maze-trajectory"
FORMAT_VERSION = 1

_STATE_FIELDS = tuple(field.name for field in fields(StateRecord))
_VALUE_FIELDS = tuple(name for name in _STATE_FIELDS if name != "step_event_log")
_SPACES_FIELDS = tuple(field.name for field in fields(SpacesRecord) if field.name != "actor_id")


def record_to_data(record: TrajectoryRecord) -> tuple[dict[str, Any], list]:
    """The JSON tree and array pools of one episode record.

    Raises:
        TrajectoryDataError: The record is neither a ``StateTrajectoryRecord`` nor a
            ``SpacesTrajectoryRecord``, or a value in it has no data-only form.
    """
    encoder = ValueEncoder(f"episode {record.id}")
    tree: dict[str, Any] = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "id": record.id, "steps": len(record)}
    steps = record.step_records
    if type(record) is StateTrajectoryRecord and all(type(step) is StateRecord for step in steps):
        tree["record"] = "state"
        columns = {name: encoder.column([getattr(step, name) for step in steps], name) for name in _VALUE_FIELDS}
        columns["step_event_log"] = _encode_event_logs(encoder, [step.step_event_log for step in steps])
        tree["columns"] = columns
        tree["renderer"] = encoder.value(record.renderer, "renderer")
    elif type(record) is SpacesTrajectoryRecord and all(type(step) is StructuredSpacesRecord for step in steps):
        tree["record"] = "spaces"
        substeps = [substep for step in steps for substep in step.substep_records]
        if not all(type(substep) is SpacesRecord for substep in substeps):
            raise TrajectoryDataError(f"episode {record.id}: sub-step records must be SpacesRecords")
        columns = {name: encoder.column([getattr(sub, name) for sub in substeps], name) for name in _SPACES_FIELDS}
        columns["step_key"] = encoder.column([sub.actor_id.step_key for sub in substeps], "actor_id.step_key")
        columns["agent_id"] = encoder.column([sub.actor_id.agent_id for sub in substeps], "actor_id.agent_id")
        tree["substeps"] = [len(step) for step in steps]
        tree["columns"] = columns
    else:
        raise TrajectoryDataError(
            f"episode {record.id}: a {class_name(type(record))} (of {sorted({class_name(type(s)) for s in steps})}) "
            "has no data-only schema; the format stores StateTrajectoryRecords of StateRecords and "
            "SpacesTrajectoryRecords of StructuredSpacesRecords; write other records with format='pickle'"
        )
    return tree, encoder.pools()


def write_data_trajectory(file: BinaryIO, record: TrajectoryRecord) -> None:
    """Writes ``record`` into ``file`` in the data-only format (see the module doc)."""
    tree, pools = record_to_data(record)
    write_container(file, tree, pools)


def read_data_trajectory(
    file: BinaryIO, trusted_modules: Iterable[str] = (), limits: ReadLimits = DEFAULT_LIMITS
) -> TrajectoryRecord:
    """Reads one record written by :func:`write_data_trajectory`.

    Args:
        file: The open file (binary, seekable).
        trusted_modules: Modules whose dataclasses, named tuples and ``from_data`` classes may be
            rebuilt, besides maze's classes marked ``@trajectory_data``.
        limits: The container's read limits.

    Raises:
        ContainerError: The container breaks its layout or limits.
        TrajectoryDecodeError: The tree is malformed, of another format version, or names a
            class the allow-list refuses.
        TrajectoryAllocationError: The file needs more than ``limits.allocation_budget``.
    """
    tree, pools, budget = read_container(file, limits)
    if type(tree) is not dict or tree.get("format") != FORMAT_NAME:
        raise TrajectoryDecodeError(f"the JSON tree is no {FORMAT_NAME} record")
    if tree.get("version") != FORMAT_VERSION:
        raise TrajectoryDecodeError(
            f"format version {str(tree.get('version'))[:20]!r} is not supported (this maze reads version "
            f"{FORMAT_VERSION}); upgrade maze-env to read it"
        )
    decoder = ValueDecoder(pools, PICKLE_ALLOW_LIST.with_user_modules(trusted_modules), budget)
    episode_id, steps, columns = tree.get("id"), tree.get("steps"), tree.get("columns")
    if type(episode_id) is not str or type(steps) is not int or steps < 0 or type(columns) is not dict:
        raise TrajectoryDecodeError("malformed record header (id, steps or columns)")
    if tree.get("record") == "state":
        return _decode_state_record(decoder, episode_id, steps, columns, tree.get("renderer"))
    if tree.get("record") == "spaces":
        return _decode_spaces_record(decoder, episode_id, steps, columns, tree.get("substeps"))
    raise TrajectoryDecodeError(f"unknown record schema {str(tree.get('record'))[:40]!r}")


def _columns(decoder: ValueDecoder, columns: dict, names: Iterable[str], rows: int) -> list[list[Any]]:
    expected = set(names)
    if set(columns) != expected:
        raise TrajectoryDecodeError(f"the record's columns are {sorted(columns)[:20]}, expected {sorted(expected)}")
    return [decoder.column(columns[name], rows, name) for name in names]


def _decode_state_record(
    decoder: ValueDecoder, episode_id: str, steps: int, columns: dict, renderer: Any
) -> StateTrajectoryRecord:
    if "step_event_log" not in columns:
        raise TrajectoryDecodeError("the record has no step_event_log column")
    logs = _decode_event_logs(decoder, columns["step_event_log"], steps)
    decoded = _columns(decoder, {k: v for k, v in columns.items() if k != "step_event_log"}, _VALUE_FIELDS, steps)
    position = _STATE_FIELDS.index("step_event_log")
    decoded.insert(position, logs)
    records = [StateRecord(*row) for row in zip(*decoded, strict=True)] if decoded else []
    return StateTrajectoryRecord(id=episode_id, step_records=records, renderer=decoder.value(renderer, "renderer"))


def _decode_spaces_record(
    decoder: ValueDecoder, episode_id: str, steps: int, columns: dict, substeps: Any
) -> SpacesTrajectoryRecord:
    if type(substeps) is not list or len(substeps) != steps or not all(type(n) is int and n >= 0 for n in substeps):
        raise TrajectoryDecodeError("malformed sub-step counts")
    rows = sum(substeps)
    names = ("step_key", "agent_id", *_SPACES_FIELDS)
    step_keys, agent_ids, *values = _columns(decoder, columns, names, rows)
    flat = [
        SpacesRecord(ActorID(key, agent), *row) for key, agent, *row in zip(step_keys, agent_ids, *values, strict=True)
    ]
    records, start = [], 0
    for count in substeps:
        records.append(StructuredSpacesRecord(flat[start : start + count]))
        start += count
    return SpacesTrajectoryRecord(id=episode_id, step_records=records)


def _encode_event_logs(encoder: ValueEncoder, logs: list[Any]) -> dict[str, Any]:
    """Event logs, flat: env time and event count per step (-1: no log), names by index, attribute columns.

    The attributes are stored as one column per event (topic and method pair), in firing order.
    """
    names: dict[Any, int] = {}
    counts, times, events = [], [], []
    attributes: dict[tuple[int, int], list] = {}
    for step, log in enumerate(logs):
        if log is None:
            counts.append(-1)
            times.append(0)
            continue
        if type(log) is not StepEventLog:
            raise TrajectoryDataError(f"episode: step {step}'s step_event_log is a {type(log).__name__}")
        counts.append(len(log.events))
        times.append(log.env_time)
        for event in log.events:
            topic, method, attrs = event
            pair = []
            for target in (topic, method):
                name = f"{target.__module__}:{target.__qualname__}"
                pair.append(names.setdefault(name, len(names)))
            events.append(pair)
            attributes.setdefault((pair[0], pair[1]), []).append(attrs)
    return {
        "n": counts,
        "t": encoder.column(times, "step_event_log.env_time"),
        "names": list(names),
        "events": events,
        "attributes": [
            [*pair, encoder.column(values, "step_event_log.events.attributes")] for pair, values in attributes.items()
        ],
    }


def _decode_event_logs(decoder: ValueDecoder, node: Any, steps: int) -> list[Any]:
    if type(node) is not dict:
        raise TrajectoryDecodeError("malformed step_event_log column")
    counts, names, events = node.get("n"), node.get("names"), node.get("events")
    if type(counts) is not list or len(counts) != steps or not all(type(n) is int and n >= -1 for n in counts):
        raise TrajectoryDecodeError("step_event_log: malformed event counts")
    if type(names) is not list or type(events) is not list or len(events) != sum(n for n in counts if n > 0):
        raise TrajectoryDecodeError("step_event_log: malformed event names or events")
    for pair in events:
        if type(pair) is not list or len(pair) != 2 or not all(type(i) is int and 0 <= i < len(names) for i in pair):
            raise TrajectoryDecodeError("step_event_log: malformed event reference")
    times = decoder.column(node.get("t"), steps, "step_event_log.env_time")
    resolved = [decoder.resolve(name, "event") for name in names]
    by_pair = _event_attributes(decoder, node.get("attributes"), events)
    records = []
    for pair in events:
        topic, method = resolved[pair[0]], resolved[pair[1]]
        attrs = next(by_pair[(pair[0], pair[1])])
        if not isinstance(topic, type) or not callable(method) or type(attrs) is not dict:
            raise TrajectoryDecodeError(f"step_event_log: {names[pair[0]]} / {names[pair[1]]} is no event")
        records.append(EventRecord(topic, method, attrs))
    logs, start = [], 0
    for count, env_time in zip(counts, times, strict=True):
        if count < 0:
            logs.append(None)
            continue
        logs.append(StepEventLog(env_time, records[start : start + count]))
        start += count
    return logs


def _event_attributes(decoder: ValueDecoder, node: Any, events: list[list[int]]) -> dict[tuple[int, int], Iterator]:
    """The attribute dicts of each event (topic and method pair), in firing order, checked against ``events``."""
    counts = Counter((pair[0], pair[1]) for pair in events)
    if type(node) is not list or len(node) != len(counts):
        raise TrajectoryDecodeError("step_event_log: malformed attribute columns")
    by_pair: dict[tuple[int, int], Iterator] = {}
    for entry in node:
        if type(entry) is not list or len(entry) != 3 or (key := (entry[0], entry[1])) not in counts or key in by_pair:
            raise TrajectoryDecodeError("step_event_log: malformed attribute column")
        by_pair[key] = iter(decoder.column(entry[2], counts[key], "step_event_log.events.attributes"))
    return by_pair
