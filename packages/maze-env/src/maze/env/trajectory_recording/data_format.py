"""The data-only trajectory format: one episode record as plain arrays and JSON, by a fixed schema.

A file (``<episode id>.traj.npz``, see :mod:`~maze.env.trajectory_recording.data_container`)
holds one JSON tree::

    {"format": "maze-trajectory", "version": 2,
     "record": "state" | "spaces",          # which schema: StateTrajectoryRecord / SpacesTrajectoryRecord
     "id": "<episode id>", "steps": T,
     "columns": {...},                      # the step records, field by field (one column per field)
     "renderer": <value> }                  # state records only

The *reader* knows the record classes and their fields; the file only names the schema
(``"state"`` or ``"spaces"``). State records have the columns of :class:`StateRecord`'s fields;
``step_event_log`` is stored flat (event counts per step, env times, the events' topic and
method names, resolved through the allow-list once per file, each event as a pair of name
indices, and the attributes as one column per pair). Spaces records store their sub-steps flat,
with ``"substeps"``: the sub-step count of each env step, and the columns of
:class:`SpacesRecord`'s fields (``actor_id`` as ``step_key`` and ``agent_id``). Columns are
encoded by :mod:`~maze.env.trajectory_recording.data_columns`, values in them by
:mod:`~maze.env.trajectory_recording.data_values`; bulk data (numbers, tuples of numbers, arrays,
indices) lives in the array pools, so that the JSON tree stays small. Version 2 (this one)
replaced version 1, which stored scalar columns and event lists as JSON lists.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import fields
from itertools import accumulate, repeat
from typing import Any, BinaryIO

from maze.env.core.actor import ActorID
from maze.env.core.events import EventRecord
from maze.env.log_events.step_event_log import StepEventLog
from maze.env.trajectory_recording.data_columns import decode_column, decode_ints, encode_column
from maze.env.trajectory_recording.data_container import DEFAULT_LIMITS, ReadLimits, read_container, write_container
from maze.env.trajectory_recording.data_values import (
    ROW_BYTES,
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
FORMAT_VERSION = 2

_MAX_COUNT = 2**40
"""More events than any step fires."""
_DICT = frozenset((dict,))
_new_tuple = tuple.__new__
"""Builds EventRecords as ``EventRecord.__new__`` does for a dict of attributes, without a Python call each."""
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
        columns = {
            name: encode_column(encoder, [getattr(step, name) for step in steps], name) for name in _VALUE_FIELDS
        }
        columns["step_event_log"] = _encode_event_logs(encoder, [step.step_event_log for step in steps])
        tree["columns"] = columns
        tree["renderer"] = encoder.value(record.renderer, "renderer")
    elif type(record) is SpacesTrajectoryRecord and all(type(step) is StructuredSpacesRecord for step in steps):
        tree["record"] = "spaces"
        substeps = [substep for step in steps for substep in step.substep_records]
        if not all(type(substep) is SpacesRecord for substep in substeps):
            raise TrajectoryDataError(f"episode {record.id}: sub-step records must be SpacesRecords")
        columns = {
            name: encode_column(encoder, [getattr(sub, name) for sub in substeps], name) for name in _SPACES_FIELDS
        }
        columns["step_key"] = encode_column(encoder, [sub.actor_id.step_key for sub in substeps], "actor_id.step_key")
        columns["agent_id"] = encode_column(encoder, [sub.actor_id.agent_id for sub in substeps], "actor_id.agent_id")
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
    modules = tuple(trusted_modules)
    allow_list = PICKLE_ALLOW_LIST.with_user_modules(modules) if modules else PICKLE_ALLOW_LIST
    decoder = ValueDecoder(pools, allow_list, budget)
    episode_id, steps, columns = tree.get("id"), tree.get("steps"), tree.get("columns")
    if type(episode_id) is not str or type(steps) is not int or steps < 0 or type(columns) is not dict:
        raise TrajectoryDecodeError("malformed record header (id, steps or columns)")
    if tree.get("record") == "state":
        return _decode_state_record(decoder, episode_id, steps, columns, tree.get("renderer"))
    if tree.get("record") == "spaces":
        return _decode_spaces_record(decoder, episode_id, steps, columns, tree.get("substeps"))
    raise TrajectoryDecodeError(f"unknown record schema {str(tree.get('record'))[:40]!r}")


def _columns(decoder: ValueDecoder, columns: dict, names: tuple[str, ...], rows: int) -> list[list[Any]]:
    """The columns ``names`` (exactly those), decoded in that order (``step_event_log`` as event logs)."""
    if columns.keys() != set(names):
        raise TrajectoryDecodeError(f"the record's columns are {sorted(columns)[:20]}, expected {sorted(names)}")
    return [
        _decode_event_logs(decoder, columns[name], rows)
        if name == "step_event_log"
        else decode_column(decoder, columns[name], rows, name)
        for name in names
    ]


def _decode_state_record(
    decoder: ValueDecoder, episode_id: str, steps: int, columns: dict, renderer: Any
) -> StateTrajectoryRecord:
    records = list(map(StateRecord, *_columns(decoder, columns, _STATE_FIELDS, steps)))
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
    """Event logs, flat: event count per step (``"n"``, -1: no log), env times, names, event kinds, events.

    Each event *kind* (a topic and method pair, as indices into ``"names"``) comes with the
    column of its events' attributes, in firing order; ``"e"`` holds the kind of each event, in
    firing order.
    """
    names: dict[str, int] = {}
    kinds: dict[tuple[int, int], int] = {}
    counts, times, events, attributes = [], [], [], []
    for step, log in enumerate(logs):
        if log is None:
            counts.append(-1)
            times.append(0)
            continue
        if type(log) is not StepEventLog:
            raise TrajectoryDataError(f"episode: step {step}'s step_event_log is a {type(log).__name__}")
        counts.append(len(log.events))
        times.append(log.env_time)
        for topic, method, attrs in log.events:
            pair = tuple(names.setdefault(f"{t.__module__}:{t.__qualname__}", len(names)) for t in (topic, method))
            kind = kinds.setdefault(pair, len(kinds))
            if kind == len(attributes):
                attributes.append([])
            attributes[kind].append(attrs)
            events.append(kind)
    return {
        "n": encode_column(encoder, counts, "step_event_log.n"),
        "t": encode_column(encoder, times, "step_event_log.env_time"),
        "names": list(names),
        "kinds": [
            [*pair, encode_column(encoder, values, "step_event_log.events.attributes")]
            for pair, values in zip(kinds, attributes, strict=True)
        ],
        "e": encode_column(encoder, events, "step_event_log.events"),
    }


def _decode_event_logs(decoder: ValueDecoder, node: Any, steps: int) -> list[Any]:
    if type(node) is not dict or type(node.get("names")) is not list or type(node.get("kinds")) is not list:
        raise TrajectoryDecodeError("malformed step_event_log column")
    kinds = node["kinds"]
    counts = decode_ints(decoder, node.get("n"), steps, "step_event_log.n", -1, _MAX_COUNT)
    sizes = [count if count > 0 else 0 for count in counts] if -1 in counts else counts
    ends = list(accumulate(sizes))
    total = ends[-1] if ends else 0
    events = decode_ints(decoder, node.get("e"), total, "step_event_log.events", 0, len(kinds) - 1)
    times = decode_column(decoder, node.get("t"), steps, "step_event_log.env_time")
    decoder.budget.charge(total * ROW_BYTES, f"step_event_log of {total} events")
    records: list = []
    if total:
        by_kind = _event_records(decoder, kinds, node["names"], Counter(events))
        records = list(map(next, map(by_kind.__getitem__, events)))
    logs = list(map(StepEventLog, times, map(records.__getitem__, map(slice, [0, *ends[:-1]], ends))))
    if sizes is not counts:
        for step, count in enumerate(counts):
            if count < 0:
                logs[step] = None
    return logs


def _event_records(decoder: ValueDecoder, kinds: list, names: list, counts: Counter) -> list[Iterator]:
    """The records of each event kind (topic and method pair), in firing order.

    Each name is resolved once per file through the allow-list (the decoder caches); each kind
    is checked once (a topic class and a callable method); each record's attributes must be a dict.
    """
    by_kind: list[Iterator] = []
    for index, kind in enumerate(kinds):
        if (
            type(kind) is not list
            or len(kind) != 3
            or not all(type(i) is int and 0 <= i < len(names) for i in kind[:2])
        ):
            raise TrajectoryDecodeError("step_event_log: malformed event kind")
        topic, method = decoder.resolve(names[kind[0]], "event"), decoder.resolve(names[kind[1]], "event")
        if not isinstance(topic, type) or not callable(method):
            raise TrajectoryDecodeError(f"step_event_log: {names[kind[0]]} / {names[kind[1]]} is no event")
        attributes = decode_column(decoder, kind[2], counts[index], "step_event_log.events.attributes")
        if not _DICT.issuperset(map(type, attributes)):
            raise TrajectoryDecodeError(f"step_event_log: the attributes of {names[kind[1]]} are no dicts")
        fields = zip(repeat(topic), repeat(method), attributes)
        by_kind.append(iter(list(map(_new_tuple, repeat(EventRecord), fields))))
    return by_kind
