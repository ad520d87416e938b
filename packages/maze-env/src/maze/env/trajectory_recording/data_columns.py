"""Columns of the data-only trajectory format: the values of one field across all steps, stored at once.

A column is a JSON node whose ``"@"`` key says how its values are stored; bulk data lives in
the array pools (see :mod:`~maze.env.trajectory_recording.data_values`), so that reading a
column is a few numpy calls (``tolist()``) rather than one JSON value per step:

* ``"A"``: bools, ints or floats (all of one type) as one array (:data:`ARRAY_ROWS` values or more).
* ``"K"``: other plain scalars (strings, None, mixed types) that repeat: the distinct values
  as a JSON list ``"t"`` and an index array into it.
* ``"L"``: plain scalars as a JSON list.
* ``"P"``: ints that go up (or down) by one step (``"a"``: the first, ``"d"``: the step), e.g. env times.
* ``"R"``: tuples of numbers (all ints or all floats, one width), or lists of such tuples: the
  distinct tuples as a 2-D array ``"u"``, the index array ``"i"`` into it and, for lists, the
  list lengths ``"n"``. Equal tuples are read as one shared object (as unpickling shares them).
* ``"LT"``: other tuples of plain scalars as JSON lists.
* ``"S"``: equal-shaped numpy arrays or scalars of one dtype, stacked into one array.
* ``"O"``: dataclasses of one class, field by field; ``"D"``: dicts with the same string keys,
  key by key (each field or key a column).
* ``"E"``: anything else, value by value.

Reading checks every node (dtypes, shapes, indices within their tables, lengths adding up)
and charges the allocation budget for the values a column builds before building them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from itertools import accumulate, repeat
from typing import Any, Optional

import numpy as np
from maze.env.trajectory_recording.data_values import (
    MAX_DEPTH,
    PLAIN_SCALARS,
    ROW_BYTES,
    TrajectoryDecodeError,
    ValueDecoder,
    ValueEncoder,
    class_name,
    has_hook,
    is_tuple_rows,
    number_rows,
    smallest_ints,
)

__all__ = ["ARRAY_ROWS", "decode_column", "decode_ints", "encode_column"]

_PLAIN = frozenset(PLAIN_SCALARS)
_INT = frozenset((int,))
_NUMBER_KINDS = {bool: np.bool_, float: np.float64}
ARRAY_ROWS = 32
"""Columns of plain scalars shorter than this stay JSON lists (an array costs more to read than a short list)."""
_ITEM_BYTES = 16
"""Bytes charged per element of an ``"R"`` column's flat list (a slot in it and in its step's list)."""


def encode_column(encoder: ValueEncoder, values: Sequence[Any], path: str) -> dict[str, Any]:
    """Encodes the values of one field across steps, column-wise where they agree in kind."""
    if not values:
        return {"@": "E", "v": []}
    kinds = {type(value) for value in values}
    if kinds <= _PLAIN:
        return _scalar_column(encoder, values, kinds, path)
    if len(kinds) == 1:
        (kind,) = kinds
        first = values[0]
        if kind is tuple and is_tuple_rows(values):
            array = number_rows(values)
            if array is None:
                return {"@": "LT", "v": [list(value) for value in values]}
            return _tuple_column(encoder, array, None, path)
        if kind is list:
            flat = [item for value in values for item in value]
            array = number_rows(flat) if flat and is_tuple_rows(flat) else None
            if array is not None:
                return _tuple_column(encoder, array, [len(value) for value in values], path)
        elif kind is np.ndarray or issubclass(kind, np.generic):
            dtype, shape = first.dtype, np.shape(first)
            if all(value.dtype == dtype and np.shape(value) == shape for value in values):
                return {"@": "S", **encoder.array(np.stack(values) if kind is np.ndarray else np.array(values), path)}
        elif dataclasses.is_dataclass(kind) and not has_hook(kind):
            names = [field.name for field in dataclasses.fields(kind) if field.init]
            columns = {
                name: encode_column(encoder, [getattr(v, name) for v in values], f"{path}.{name}") for name in names
            }
            return {"@": "O", "c": class_name(kind), "f": columns}
        elif kind is dict:
            keys = list(first)
            if all(type(key) is str for key in keys) and all(list(value) == keys for value in values):
                columns = [encode_column(encoder, [value[key] for value in values], f"{path}[{key!r}]") for key in keys]
                return {"@": "D", "k": keys, "c": columns}
    return {"@": "E", "v": [encoder.value(value, path) for value in values]}


def _scalar_column(encoder: ValueEncoder, values: Sequence[Any], kinds: set, path: str) -> dict[str, Any]:
    """``"L"`` for few values; ``"A"`` for bools, ints or floats of one type; ``"K"`` when values repeat; else ``"L"``."""
    if kinds == _INT and len(values) > 2 and _is_progression(values):
        return {"@": "P", "a": values[0], "d": values[1] - values[0]}
    if len(values) < ARRAY_ROWS:
        return {"@": "L", "v": list(values)}
    if len(kinds) == 1:
        (kind,) = kinds
        array = smallest_ints(values) if kind is int else None
        if kind in _NUMBER_KINDS:
            array = np.array(values, dtype=_NUMBER_KINDS[kind])
        if array is not None:
            return {"@": "A", **encoder.array(array, path)}
    table: dict[tuple[type, Any], int] = {}
    index = [table.setdefault((type(value), value), len(table)) for value in values]
    if len(table) < len(values):
        return {"@": "K", "t": [value for _, value in table], **encoder.array(smallest_ints(index), path)}
    return {"@": "L", "v": list(values)}


def _tuple_column(encoder: ValueEncoder, array: np.ndarray, lengths: Optional[list[int]], path: str) -> dict:
    """``"R"``: tuples of numbers (the rows of ``array``) as distinct rows plus indices (and list lengths)."""
    bits = array.view(np.int64) if array.dtype.kind == "f" else array  # floats by bits: -0.0 stays apart from 0.0
    distinct, index = np.unique(bits, axis=0, return_inverse=True)
    node = {
        "@": "R",
        "u": encoder.array(distinct.view(array.dtype), path),
        "i": encoder.array(smallest_ints(index.reshape(-1)), path),
    }
    if lengths is not None:
        node["n"] = encoder.array(smallest_ints(lengths), path)
    return node


def _is_progression(values: Sequence[int]) -> bool:
    """Whether ints go up (or down) by one step, e.g. env times."""
    step = values[1] - values[0]
    return all(b - a == step for a, b in zip(values, values[1:], strict=False))


def decode_column(decoder: ValueDecoder, node: Any, rows: int, path: str, depth: int = 0) -> list[Any]:
    """Decodes a column written by :func:`encode_column`: ``rows`` values.

    Raises:
        TrajectoryDecodeError: The node is malformed, nests too deeply, holds another number of
            values, or names a class the allow-list refuses.
        TrajectoryAllocationError: The values would exceed the allocation budget.
    """
    if depth > MAX_DEPTH:
        raise TrajectoryDecodeError(f"{path}: columns nest more than {MAX_DEPTH} levels deep")
    decoder.budget.charge(rows * ROW_BYTES, f"column {path} of {rows} values")
    tag = node.get("@") if type(node) is dict else None
    if tag == "A":
        array = decoder.array(node, path, rows)
        if array.ndim != 1 or array.dtype.kind not in "biuf":
            raise TrajectoryDecodeError(f"{path}: a column of numbers stored as a {array.dtype} array of {array.shape}")
        return array.tolist()
    if tag == "K":
        table = node.get("t")
        if type(table) is not list or not all(type(value) in _PLAIN for value in table):
            raise TrajectoryDecodeError(f"{path}: malformed table of values")
        return np.array(table, dtype=object)[_indices(decoder, node, len(table), rows, path)].tolist()
    if tag == "R":
        return _decode_tuples(decoder, node, rows, path)
    if tag == "P":
        return _progression(decoder, node, rows, path)
    if tag in ("L", "E", "LT"):
        values = node.get("v")
        if type(values) is not list or len(values) != rows:
            raise TrajectoryDecodeError(f"{path}: a column of {rows} steps holds no list of {rows} values")
        if tag == "L":
            if not _PLAIN.issuperset(map(type, values)):
                raise TrajectoryDecodeError(f"{path}: a column of plain values holds a list or an object")
            return values
        if tag == "LT":
            if not all(type(value) is list for value in values):
                raise TrajectoryDecodeError(f"{path}: a column of {rows} steps holds no list of {rows} tuples")
            return [tuple(value) for value in values]
        return [decoder.value(value, path, depth + 1) for value in values]
    if tag == "S":
        return list(decoder.array(node, path, rows))
    if tag == "D":
        return _decode_dicts(decoder, node, rows, path, depth)
    if tag == "O":
        return _decode_dataclasses(decoder, node, rows, path, depth)
    raise TrajectoryDecodeError(f"{path}: unknown column {str(tag)[:40]!r}")


def decode_ints(decoder: ValueDecoder, node: Any, count: int, path: str, low: int, high: int) -> list[int]:
    """A column of ``count`` ints in ``[low, high]`` (``"A"``, ``"P"``, ``"L"`` or an empty ``"E"``)."""
    tag = node.get("@") if type(node) is dict else None
    if tag == "A":
        array = decoder.array(node, path, count)
        if array.ndim != 1 or array.dtype.kind not in "iu":
            raise TrajectoryDecodeError(f"{path}: ints stored as a {array.dtype} array of {array.shape}")
        if count and (int(array.min()) < low or int(array.max()) > high):
            raise TrajectoryDecodeError(f"{path}: a value beyond [{low}, {high}]")
        decoder.budget.charge(count * _ITEM_BYTES, f"column {path} of {count} ints")
        return array.tolist()
    values = _progression(decoder, node, count, path) if tag == "P" else node.get("v") if tag in ("L", "E") else None
    if type(values) is not list or len(values) != count or not _INT.issuperset(map(type, values)):
        raise TrajectoryDecodeError(f"{path}: no column of {count} ints")
    if count and (min(values) < low or max(values) > high):
        raise TrajectoryDecodeError(f"{path}: a value beyond [{low}, {high}]")
    return values


def _progression(decoder: ValueDecoder, node: dict, rows: int, path: str) -> list[int]:
    """The ints of a ``"P"`` column: ``"a"``, ``"a" + "d"``, ... (``rows`` of them)."""
    start, step = node.get("a"), node.get("d")
    if type(start) is not int or type(step) is not int:
        raise TrajectoryDecodeError(f"{path}: malformed progression column")
    decoder.budget.charge(rows * _ITEM_BYTES, f"column {path} of {rows} ints")
    return [start] * rows if step == 0 else list(range(start, start + step * rows, step))


def _indices(decoder: ValueDecoder, node: dict, bound: int, rows: int, path: str) -> np.ndarray:
    """The index array a node names (``"m"``, ``"o"``, ``"s"`` keys): ``rows`` ints in ``[0, bound)``.

    Values are looked up by taking from an object array of the table (one C loop, no Python call per value).
    """
    array = decoder.array(node, path, rows)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise TrajectoryDecodeError(f"{path}: an index array stored as a {array.dtype} array of {array.shape}")
    if rows and (int(array.min()) < 0 or int(array.max()) >= bound):
        raise TrajectoryDecodeError(f"{path}: an index beyond its table of {bound} values")
    return array


def _decode_tuples(decoder: ValueDecoder, node: dict, rows: int, path: str) -> list[Any]:
    distinct = decoder.array(node.get("u"), path)
    if distinct.ndim != 2 or distinct.dtype.kind not in "iuf":
        raise TrajectoryDecodeError(f"{path}: tuples stored as a {distinct.dtype} array of {distinct.shape}")
    lengths_node = node.get("n")
    index_node = node.get("i")
    count = index_node.get("s") if type(index_node) is dict else None
    if type(count) is not list or len(count) != 1 or type(count[0]) is not int:
        raise TrajectoryDecodeError(f"{path}: malformed tuple indices")
    count = count[0]
    if lengths_node is None and count != rows:
        raise TrajectoryDecodeError(f"{path}: a column of {rows} steps holds {count} tuples")
    decoder.budget.charge(count * _ITEM_BYTES + len(distinct) * ROW_BYTES, f"column {path} of {count} tuples")
    table = np.fromiter(map(tuple, distinct.tolist()), dtype=object, count=len(distinct))
    flat = table[_indices(decoder, index_node, len(table), count, path)].tolist()
    if lengths_node is None:
        return flat
    lengths = decoder.array(lengths_node, path, rows)
    if lengths.ndim != 1 or lengths.dtype.kind not in "iu" or (rows and int(lengths.min()) < 0):
        raise TrajectoryDecodeError(f"{path}: malformed list lengths")
    ends = list(accumulate(lengths.tolist()))
    if (ends[-1] if ends else 0) != count:
        raise TrajectoryDecodeError(f"{path}: list lengths add up to {ends[-1] if ends else 0}, not {count} tuples")
    return [flat[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]


def _decode_dicts(decoder: ValueDecoder, node: dict, rows: int, path: str, depth: int) -> list[dict]:
    keys, columns = node.get("k"), node.get("c")
    if type(keys) is not list or type(columns) is not list or len(keys) != len(columns):
        raise TrajectoryDecodeError(f"{path}: malformed dict column")
    if not all(type(key) is str for key in keys):
        raise TrajectoryDecodeError(f"{path}: dict column with non-string keys")
    if not keys:
        return [{} for _ in range(rows)]
    decoded = [
        decode_column(decoder, column, rows, f"{path}[{key!r}]", depth + 1)
        for key, column in zip(keys, columns, strict=True)
    ]
    if len(keys) == 1:
        key = keys[0]
        return [{key: value} for value in decoded[0]]
    return list(map(dict, map(zip, repeat(keys), zip(*decoded, strict=True))))


def _decode_dataclasses(decoder: ValueDecoder, node: dict, rows: int, path: str, depth: int) -> list[Any]:
    """Dataclass instances, built by positional arguments when the columns are the ``__init__`` fields in order."""
    name, columns = node.get("c"), node.get("f")
    cls = decoder.resolve(name, "class")
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)) or type(columns) is not dict:
        raise TrajectoryDecodeError(f"{path}: {name} is no dataclass (or its field columns are malformed)")
    names = list(columns)
    decoded = [decode_column(decoder, columns[key], rows, f"{path}.{key}", depth + 1) for key in names]
    init_fields = [field.name for field in dataclasses.fields(cls) if field.init]
    try:
        if not names:
            return [cls() for _ in range(rows)]
        if names == init_fields[: len(names)]:
            return list(map(cls, *decoded))
        return [cls(**dict(zip(names, row, strict=True))) for row in zip(*decoded, strict=True)]
    except (TypeError, ValueError) as error:
        raise TrajectoryDecodeError(f"{path}: cannot rebuild {name} from the stored fields ({error})") from None
