"""JSON values to and from elements of gymnasium spaces, with one error naming the offending field.

A :class:`JsonSpace` is compiled once per space. ``decode`` turns a parsed JSON value into
the space's element (numpy arrays and integers of the space's dtype) and refuses anything
else with a :class:`FieldError`: the field path (``observation``, ``observation.position``,
``observation[1]``) and what is wrong — wrong type, wrong shape, not a number, non-finite,
outside the bounds. ``encode`` turns an action (numpy values, dicts, tuples) into plain JSON.

Decoding costs at most a few times the space's size, whatever the value: nested lists far
larger than the space are refused before numpy looks at them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from maze.deploy.observation_check import space_check

__all__ = ["FieldError", "JsonSpace", "json_values", "to_json"]

Decoder = Callable[[Any, str], Any]
"""``(json value, field path) -> space element``; raises :class:`FieldError`."""


class FieldError(ValueError):
    """A request field that does not fit its space.

    Args:
        field: The field path, e.g. ``observation[2]``.
        problem: What is wrong with it (a sentence fragment that follows the field name).
    """

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field} {problem}")
        self.field = field


class JsonSpace:
    """Decodes JSON values into elements of ``space``.

    Args:
        space: A Box, Discrete, MultiDiscrete, MultiBinary, or a Dict/Tuple of them.

    Raises:
        TypeError: For other spaces (they have no JSON form here).
    """

    def __init__(self, space: spaces.Space) -> None:
        self.space = space
        self._decode = _decoder(space)

    def decode(self, value: Any, field: str) -> Any:
        """The element of the space that ``value`` (parsed JSON) stands for.

        Raises:
            FieldError: ``value`` is not an element of the space (naming the innermost field at fault).
        """
        return self._decode(value, field)


def to_json(value: Any) -> Any:
    """``value`` (numpy arrays and scalars, dicts, tuples) as plain JSON data."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value


def json_values(space: spaces.Space) -> int:
    """How many JSON values (lists, numbers, object keys) an element of ``space`` takes."""
    if isinstance(space, spaces.Dict):
        return 1 + sum(1 + json_values(sub_space) for sub_space in space.spaces.values())
    if isinstance(space, spaces.Tuple):
        return 1 + sum(json_values(sub_space) for sub_space in space.spaces)
    if isinstance(space, spaces.Discrete):
        return 1
    return _nodes(space.shape)


def _decoder(space: spaces.Space) -> Decoder:
    if isinstance(space, spaces.Dict):
        return _dict_decoder(space)
    if isinstance(space, spaces.Tuple):
        return _tuple_decoder(space)
    if isinstance(space, spaces.Discrete):
        return _discrete_decoder(space)
    if isinstance(space, (spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)):
        return _array_decoder(space)
    raise TypeError(f"the service has no JSON form for {space}; use Box, Discrete, MultiDiscrete, MultiBinary, Dict")


def _dict_decoder(space: spaces.Dict) -> Decoder:
    entries = {key: _decoder(sub_space) for key, sub_space in space.spaces.items()}

    def decode(value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise FieldError(field, f"must be an object with the keys {list(entries)}, got {_kind(value)}")
        unknown = sorted(set(value) - set(entries))
        if unknown:
            raise FieldError(f"{field}.{unknown[0]}", f"is not a key of the space (keys: {list(entries)})")
        decoded = {}
        for key, decode_entry in entries.items():
            if key not in value:
                raise FieldError(f"{field}.{key}", "is missing")
            decoded[key] = decode_entry(value[key], f"{field}.{key}")
        return decoded

    return decode


def _tuple_decoder(space: spaces.Tuple) -> Decoder:
    entries = [_decoder(sub_space) for sub_space in space.spaces]

    def decode(value: Any, field: str) -> tuple[Any, ...]:
        if not isinstance(value, list) or len(value) != len(entries):
            raise FieldError(field, f"must be a list of {len(entries)} entries, got {_kind(value)}")
        return tuple(
            decode_entry(item, f"{field}[{i}]")
            for i, (decode_entry, item) in enumerate(zip(entries, value, strict=True))
        )

    return decode


def _discrete_decoder(space: spaces.Discrete) -> Decoder:
    check = space_check(space)

    def decode(value: Any, field: str) -> np.int64:
        if isinstance(value, bool) or not isinstance(value, int):
            raise FieldError(field, f"must be an integer ({space}), got {_kind(value)}")
        problem = check(value)
        if problem is not None:
            raise FieldError(field, problem)
        return np.int64(value)

    return decode


def _array_decoder(space: spaces.Box | spaces.MultiDiscrete | spaces.MultiBinary) -> Decoder:
    check = space_check(space)
    integral = np.issubdtype(space.dtype, np.integer)
    kinds = "iu" if integral else "iuf"

    budget = 4 * _nodes(space.shape) + 64

    def decode(value: Any, field: str) -> np.ndarray:
        if _more_nodes_than(value, budget):
            raise FieldError(field, f"holds more than {budget} lists and numbers, but {space} has shape {space.shape}")
        try:
            array = np.asarray(value)
        except ValueError:  # a ragged nesting of lists
            raise FieldError(field, f"must be a rectangular array of shape {space.shape}, got ragged lists") from None
        if array.dtype.kind not in kinds:
            wanted = "integers" if integral else "numbers"
            raise FieldError(field, f"must hold {wanted} only ({space}), got {_kind(value)}")
        if array.shape != space.shape:
            raise FieldError(field, f"has shape {array.shape}, but {space} has shape {space.shape}")
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            index = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
            raise FieldError(field, f"holds the non-finite value {array[index]} at index {index}")
        array = array.astype(space.dtype, copy=False)
        problem = check(array)
        if problem is not None:
            raise FieldError(field, problem)
        return array

    return decode


def _nodes(shape: tuple[int, ...]) -> int:
    """The lists and numbers of a value of ``shape`` written as nested lists."""
    nodes, width = 1, 1
    for size in shape:
        width *= size
        nodes += width
    return nodes


def _more_nodes_than(value: Any, budget: int) -> bool:
    """True when ``value`` (nested lists) holds more than ``budget`` lists and numbers; stops counting there."""
    pending, seen = [value], 0
    while pending:
        item = pending.pop()
        seen += 1
        if isinstance(item, list):
            if seen + len(item) > budget:
                return True
            pending.extend(item)
    return seen > budget


def _kind(value: Any) -> str:
    """A short description of a JSON value for messages."""
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"
