"""Python values as plain data: a JSON tree plus plain-dtype arrays, and back.

This is the value layer of the data-only trajectory format
(:mod:`maze.env.trajectory_recording.data_format`). :class:`ValueEncoder` turns a value into a
JSON-able tree; every numpy array (and numpy scalar) goes into an *array pool*, one flat array
per dtype, and the tree refers to it by pool index, offset and shape. :class:`ValueDecoder`
turns such a tree back into values, checking every node.

What a value may be (anything else is refused when *writing*, naming the type and the fixes):

* ``None``, ``bool``, ``int``, ``float``, ``str`` (as themselves), lists, tuples and dicts of values;
* numpy arrays and scalars of plain dtypes (booleans, integers, floats, complex numbers, byte
  and unicode strings; no object, structured, datetime or void dtypes);
* dataclass instances (their ``__init__`` fields) and named tuples, stored with their class's
  dotted name;
* instances of a class with a ``to_data()`` method and a ``from_data(data)`` classmethod, stored
  as ``to_data()``'s value (also plain data) and the class's dotted name.

Reading never calls anything the file names unless the shared allow-list admits it: the
classes marked :func:`~maze.env.utils.allow_list.trajectory_data`, event topics and event
methods, and the classes of the modules the reader trusts (``trusted_modules``). A dataclass
is rebuilt with ``cls(**fields)``, a named tuple with ``cls(*values)``, a hooked class with
``cls.from_data(data)``.

Columns of values (one field across all steps of an episode) are
:mod:`~maze.env.trajectory_recording.data_columns`.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Sequence
from math import prod
from typing import Any, Optional

import numpy as np
from maze.env.errors import MazeError
from maze.env.trajectory_recording.pickle_guards import AllocationBudget
from maze.env.utils.allow_list import AllowList, RefusedName

__all__ = [
    "PLAIN_DTYPE_KINDS",
    "PLAIN_SCALARS",
    "TrajectoryDataError",
    "TrajectoryDecodeError",
    "ValueEncoder",
    "ValueDecoder",
    "check_plain_dtype",
    "has_hook",
    "is_tuple_rows",
    "number_rows",
    "smallest_ints",
    "class_name",
]

PLAIN_DTYPE_KINDS = "biufcSU"
"""numpy dtype kinds the format stores: bool, signed/unsigned int, float, complex, bytes, unicode."""

MAX_DEPTH = 100
"""How deeply values (and columns) may nest in a trajectory file."""

MAX_NDIM = 32
"""The most dimensions an array of a trajectory file may have."""

ROW_BYTES = 128
"""Bytes charged to the allocation budget for each value a column builds (an object and its slot)."""

PLAIN_SCALARS = (type(None), bool, int, float, str)

_ADMITTED: weakref.WeakKeyDictionary[AllowList, dict[tuple[str, str], Any]] = weakref.WeakKeyDictionary()
"""Names an allow-list admitted, per (equal) allow-list: judging a name costs ~10 us, files repeat them."""
_FIXES = (
    "make it a dataclass of plain data (numbers, strings, arrays, lists, dicts), give its class a to_data() method "
    "and a from_data(data) classmethod, or record with format='pickle' (TrajectoryWriterFile(..., format='pickle'), "
    "maze-run: runner.trajectory_format=pickle)"
)


class TrajectoryDataError(MazeError, TypeError):
    """A value has no data-only form (raised when writing; the message names the type and the fixes)."""


class TrajectoryDecodeError(MazeError, ValueError):
    """A data-only trajectory tree is malformed or names something the allow-list refuses."""


def class_name(cls: type) -> str:
    """The dotted name a file stores for ``cls``: ``'module:qualname'``."""
    return f"{cls.__module__}:{cls.__qualname__}"


def check_plain_dtype(dtype: np.dtype) -> Optional[str]:
    """Why ``dtype`` is not a plain dtype the format stores, or None when it is."""
    if dtype.fields is not None or dtype.subdtype is not None:
        return f"structured or sub-array dtype {dtype}"
    if dtype.kind not in PLAIN_DTYPE_KINDS or dtype.hasobject:
        return f"dtype {dtype} (kind {dtype.kind!r}); only {PLAIN_DTYPE_KINDS!r} kinds are stored"
    if dtype.itemsize == 0:
        return f"zero-size dtype {dtype}"
    return None


class ValueEncoder:
    """Encodes values into a JSON-able tree and an array pool (see the module doc).

    Args:
        where: What is being encoded, for messages (e.g. ``'episode 3f2a...'``).
    """

    def __init__(self, where: str = "the record") -> None:
        self.where = where
        self._pools: dict[str, list[np.ndarray]] = {}
        self._sizes: dict[str, int] = {}
        self._order: list[str] = []

    def pools(self) -> list[np.ndarray]:
        """The pooled arrays, one flat array per dtype, in pool-index order."""
        return [
            np.concatenate(self._pools[key]) if len(self._pools[key]) > 1 else self._pools[key][0]
            for key in self._order
        ]

    def array(self, array: np.ndarray, path: str) -> dict[str, Any]:
        """Adds ``array`` to its dtype's pool; returns its reference ``{"m": pool, "o": offset, "s": shape}``."""
        reason = check_plain_dtype(array.dtype)
        if reason is not None:
            raise TrajectoryDataError(f"{self.where}: {path} is an array of {reason}; convert it or {_FIXES}")
        key = array.dtype.str
        if key not in self._pools:
            self._pools[key], self._sizes[key] = [], 0
            self._order.append(key)
        flat = np.ascontiguousarray(array).reshape(-1)
        offset = self._sizes[key]
        self._pools[key].append(flat)
        self._sizes[key] = offset + flat.size
        return {"m": self._order.index(key), "o": offset, "s": list(array.shape)}

    def value(self, value: Any, path: str = "value") -> Any:
        """Encodes one value (recursively).

        Raises:
            TrajectoryDataError: The value (or one inside it) has no data-only form.
        """
        kind = type(value)
        if kind in PLAIN_SCALARS:
            return value
        if kind is list:
            if value and is_tuple_rows(value):  # e.g. a list of (x, y) pieces: one node, not one per tuple
                rows = number_rows(value)
                if rows is not None:
                    return {"@": "la", **self.array(rows, path)}
                return {"@": "lt", "v": [list(item) for item in value]}
            return [self.value(item, f"{path}[{index}]") for index, item in enumerate(value)]
        if kind is dict:
            if all(type(key) is str for key in value):
                return {"@": "d", "v": {key: self.value(item, f"{path}[{key!r}]") for key, item in value.items()}}
            return {
                "@": "m",
                "v": [
                    [self.value(key, f"{path} key"), self.value(item, f"{path}[{key!r}]")]
                    for key, item in value.items()
                ],
            }
        if kind is np.ndarray:
            return {"@": "a", **self.array(value, path)}
        if isinstance(value, np.generic):
            return {"@": "n", **self.array(np.asarray(value), path)}
        if kind is tuple:
            return {"@": "t", "v": [self.value(item, f"{path}[{index}]") for index, item in enumerate(value)]}
        return self._object(value, path)

    def _object(self, value: Any, path: str) -> Any:
        kind = type(value)
        if has_hook(kind):
            return {"@": "h", "c": class_name(kind), "v": self.value(value.to_data(), f"{path}.to_data()")}
        if dataclasses.is_dataclass(kind):
            fields = [field.name for field in dataclasses.fields(value) if field.init]
            return {
                "@": "o",
                "c": class_name(kind),
                "v": {name: self.value(getattr(value, name), f"{path}.{name}") for name in fields},
            }
        if isinstance(value, tuple) and isinstance(getattr(kind, "_fields", None), tuple):
            return {
                "@": "nt",
                "c": class_name(kind),
                "v": [self.value(item, f"{path}[{i}]") for i, item in enumerate(value)],
            }
        raise TrajectoryDataError(
            f"{self.where}: {path} is a {kind.__module__}.{kind.__qualname__}, which has no data-only form; {_FIXES}"
        )


class ValueDecoder:
    """Decodes trees written by :class:`ValueEncoder`, checking every node.

    Args:
        pools: The array pools, by index (flat arrays of plain dtypes, already checked).
        allow_list: Resolves the class names of dataclasses, named tuples and hooked classes.
        budget: Charged :data:`ROW_BYTES` for each value a column builds (a column of views
            into a pool, or of empty dicts, can stand for many values in few bytes).
    """

    def __init__(self, pools: Sequence[np.ndarray], allow_list: AllowList, budget: AllocationBudget) -> None:
        self.pools = pools
        self.allow_list = allow_list
        self.budget = budget
        self._classes: dict[str, Any] = {}

    def resolve(self, name: Any, what: str) -> Any:
        """The object ``'module:qualname'`` names, if the allow-list admits it (cached)."""
        if name in self._classes:
            return self._classes[name]
        if type(name) is not str or name.count(":") != 1:
            raise TrajectoryDecodeError(f"malformed {what} name {str(name)[:100]!r} (expected 'module:qualname')")
        module, qualname = name.split(":")
        admitted = _ADMITTED.setdefault(self.allow_list, {})
        if (module, qualname) in admitted:
            self._classes[name] = admitted[module, qualname]
            return self._classes[name]
        try:
            target = self.allow_list.resolve(module, qualname)
        except RefusedName as refused:
            top = module.split(".")[0]
            raise TrajectoryDecodeError(
                f"refusing to rebuild {module}.{qualname}: {refused.reason}. If you trust the file, trust the module: "
                f"trusted_modules=['{top}']"
            ) from None
        except AttributeError as error:
            raise TrajectoryDecodeError(f"cannot rebuild {module}.{qualname}: {error}") from None
        self._classes[name] = admitted[module, qualname] = target
        return target

    def array(self, node: dict, path: str, rows: Optional[int] = None) -> np.ndarray:
        """The array a reference node names (a view into its pool), with its shape checked."""
        if type(node) is not dict:
            raise TrajectoryDecodeError(f"{path}: malformed array reference")
        pool_index, offset, shape = node.get("m"), node.get("o"), node.get("s")
        if not (_is_index(pool_index) and _is_index(offset) and type(shape) is list and len(shape) <= MAX_NDIM):
            raise TrajectoryDecodeError(f"{path}: malformed array reference")
        for extent in shape:
            if type(extent) is not int or extent < 0:
                raise TrajectoryDecodeError(f"{path}: array reference with a bad shape")
        if pool_index >= len(self.pools):
            raise TrajectoryDecodeError(f"{path}: array reference out of range")
        size = prod(shape)
        pool = self.pools[pool_index]
        if offset + size > pool.size:
            raise TrajectoryDecodeError(
                f"{path}: array of shape {tuple(shape)} at offset {offset} exceeds its pool ({pool.size} elements)"
            )
        if rows is not None and (not shape or shape[0] != rows):
            raise TrajectoryDecodeError(f"{path}: a column of {rows} steps has shape {tuple(shape)}")
        return pool[offset : offset + size].reshape(shape)

    def value(self, node: Any, path: str = "value", depth: int = 0) -> Any:
        """Decodes one encoded value (recursively).

        Raises:
            TrajectoryDecodeError: The tree is malformed, nests too deeply or names a class the
                allow-list refuses.
        """
        kind = type(node)
        if kind in PLAIN_SCALARS:
            return node
        if depth > MAX_DEPTH:
            raise TrajectoryDecodeError(f"{path}: values nest more than {MAX_DEPTH} levels deep")
        depth += 1
        if kind is list:
            return [self.value(item, path, depth) for item in node]
        if kind is not dict:
            raise TrajectoryDecodeError(f"{path}: unexpected JSON value of type {kind.__name__}")
        tag, body = node.get("@"), node.get("v")
        if tag == "d" and type(body) is dict:
            return {key: self.value(item, path, depth) for key, item in body.items()}
        if tag in ("t", "m", "nt") and type(body) is not list:
            raise TrajectoryDecodeError(f"{path}: malformed {tag!r} node")
        if tag == "t":
            return tuple(self.value(item, path, depth) for item in body)
        if tag == "lt" and type(body) is list and all(type(item) is list for item in body):
            return [tuple(item) for item in body]
        if tag == "la":
            array = self.array(node, path)
            if array.ndim != 2 or array.dtype.kind not in "if":
                raise TrajectoryDecodeError(
                    f"{path}: a list of tuples stored as a {array.dtype} array of {array.shape}"
                )
            return list(map(tuple, array.tolist()))
        if tag == "m":
            return self._mapping(body, path, depth)
        if tag == "a":
            return self.array(node, path)
        if tag == "n":
            array = self.array(node, path)
            if array.shape != ():
                raise TrajectoryDecodeError(f"{path}: a numpy scalar with shape {array.shape}")
            return array[()]
        if tag in ("o", "nt", "h"):
            return self._object(tag, node.get("c"), body, path, depth)
        raise TrajectoryDecodeError(f"{path}: unknown node {str(tag)[:40]!r}")

    def _mapping(self, body: list, path: str, depth: int) -> dict:
        result = {}
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise TrajectoryDecodeError(f"{path}: malformed dict entry")
            key = self.value(pair[0], path, depth)
            try:
                result[key] = self.value(pair[1], path, depth)
            except TypeError:
                raise TrajectoryDecodeError(f"{path}: unhashable dict key of type {type(key).__name__}") from None
        return result

    def _object(self, tag: str, name: Any, body: Any, path: str, depth: int) -> Any:
        cls = self.resolve(name, "class")
        if not isinstance(cls, type):
            raise TrajectoryDecodeError(f"{path}: {name} is no class")
        try:
            if tag == "o":
                if not dataclasses.is_dataclass(cls) or type(body) is not dict:
                    raise TrajectoryDecodeError(f"{path}: {name} is no dataclass (or its fields are malformed)")
                return cls(**{key: self.value(item, path, depth) for key, item in body.items()})
            if tag == "nt":
                if not (issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)):
                    raise TrajectoryDecodeError(f"{path}: {name} is no named tuple")
                return cls(*(self.value(item, path, depth) for item in body))
            if not callable(getattr(cls, "from_data", None)):
                raise TrajectoryDecodeError(f"{path}: {name} has no from_data()")
            return cls.from_data(self.value(body, path, depth))
        except TrajectoryDecodeError:
            raise
        except (TypeError, ValueError) as error:
            raise TrajectoryDecodeError(f"{path}: cannot rebuild {name} from the stored fields ({error})") from None


def has_hook(kind: type) -> bool:
    """Whether a class declares its data form (``to_data()`` and ``from_data(data)``)."""
    return callable(getattr(kind, "to_data", None)) and callable(getattr(kind, "from_data", None))


def is_tuple_rows(items: list) -> bool:
    """A non-empty list of equally long tuples of plain scalars."""
    first = items[0]
    if type(first) is not tuple:
        return False
    width = len(first)
    return all(
        type(item) is tuple and len(item) == width and all(type(x) in PLAIN_SCALARS for x in item) for item in items
    )


def number_rows(items: list) -> Optional[np.ndarray]:
    """Tuples of only ints (int64 range) or only floats as one 2-D array; None for anything else."""
    kinds = {type(x) for item in items for x in item}
    if kinds == {int}:
        return smallest_ints(items)
    return np.array(items, dtype=np.float64) if kinds == {float} else None


def _is_index(value: Any) -> bool:
    """A non-negative int (not a bool)."""
    return type(value) is int and value >= 0


def smallest_ints(items: Sequence) -> Optional[np.ndarray]:
    """Python ints (or nested lists of them) as an array of the smallest signed dtype that holds them.

    None when one is beyond the int64 range. Read back with ``tolist()``, they are Python ints again.
    """
    try:
        array = np.array(items, dtype=np.int64)
    except OverflowError:
        return None
    for small in (np.int8, np.int16, np.int32):
        info = np.iinfo(small)
        if array.size == 0 or (info.min <= array.min() and array.max() <= info.max):
            return array.astype(small)
    return array
