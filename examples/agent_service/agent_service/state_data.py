"""An env's MazeState from its JSON data form, and back: how a request carries a state that is no observation.

A forecast (and an env whose states are Python objects, such as Cutting-2D's) needs the
env's MazeState, not the policy's observation. A request carries it in its *data form*, the
form the data-only trajectory files store (:mod:`maze.env.trajectory_recording.data_values`):

* a dataclass state: a JSON object of its ``__init__`` fields, each decoded by the field's type
  annotation (``int``, ``float``, ``bool``, ``str``, ``None``, ``Optional``/unions of those,
  ``tuple[...]``, ``list[...]``, ``dict[str, ...]``, numpy arrays as nested lists, nested
  dataclasses), e.g. Cutting-2D's
  ``{"inventory": [[4, 3]], "max_pieces_in_inventory": 50, "current_demand": [1, 2], "raw_piece_size": [4, 3]}``;
* a class with ``to_data()`` and ``from_data(data)``: the JSON value of ``to_data()``, rebuilt with ``from_data``.

The request never names a class: the service decodes into the class of the env it serves,
and only if the trajectory files' allow-list (``PICKLE_ALLOW_LIST``: maze's classes marked
``@trajectory_data``) admits it and every class inside it. Nothing else is called, no pickle
is read, and decoding costs at most a few times the number of JSON values (which the route
bounds before parsing).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable
from typing import Any, Union

import numpy as np
from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording.data_values import class_name, has_hook
from maze.env.trajectory_recording.safe_unpickler import PICKLE_ALLOW_LIST
from maze.env.utils.allow_list import AllowList, RefusedName

from .spaces_json import FieldError

__all__ = ["DataState", "state_to_json"]

Decoder = Callable[[Any, str], Any]
"""``(json value, field path) -> python value``; raises :class:`FieldError`."""

INT_BOUND = 1 << 63
"""Integers of a state lie in ``[-INT_BOUND, INT_BOUND)`` (numpy's int64)."""

MAX_ARRAY_VALUES = 1 << 20
"""The most numbers one array field of a state may hold."""


class DataState:
    """Decodes the JSON data form of ``state_class`` (see the module doc).

    Args:
        state_class: The env's MazeState class.
        allow_list: Admits the classes a request may build (default: the trajectory files' allow-list).

    Raises:
        ConfigurationError: The allow-list refuses the class (or one of its fields' classes), or a
            field's annotation has no JSON form here (naming the field).
    """

    def __init__(self, state_class: type, allow_list: AllowList = PICKLE_ALLOW_LIST) -> None:
        self.state_class = state_class
        self._allow_list = allow_list
        self._decode = self._class_decoder(state_class, "maze_state")

    def decode(self, value: Any, field: str) -> Any:
        """The MazeState that the JSON ``value`` stands for.

        Raises:
            FieldError: ``value`` does not fit the state class (naming the innermost field at fault).
        """
        return self._decode(value, field)

    def _admit(self, cls: type) -> None:
        module, qualname = cls.__module__, cls.__qualname__
        try:
            admitted = self._allow_list.resolve(module, qualname)
        except (RefusedName, AttributeError, ImportError) as error:
            reason = getattr(error, "reason", str(error))
            raise ConfigurationError(
                f"the service builds MazeStates only of classes the trajectory allow-list admits; {module}.{qualname} "
                f"is refused ({reason}): mark it @trajectory_data (maze.env.utils.allow_list) if it stores only the "
                "values it is given"
            ) from None
        if admitted is not cls:
            raise ConfigurationError(f"{module}.{qualname} resolves to another object than the env's state class")

    def _class_decoder(self, cls: type, where: str) -> Decoder:
        self._admit(cls)
        if has_hook(cls):
            return _hooked_decoder(cls)
        if not dataclasses.is_dataclass(cls):
            raise ConfigurationError(
                f"{where}: the env's MazeState {class_name(cls)} has no data form; make it a dataclass of plain data "
                "or give it to_data() and a from_data(data) classmethod"
            )
        hints = typing.get_type_hints(cls)
        fields = [field for field in dataclasses.fields(cls) if field.init]
        decoders = {field.name: self._decoder(hints.get(field.name, Any), f"{where}.{field.name}") for field in fields}
        required = {
            field.name
            for field in fields
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        }
        return _dataclass_decoder(cls, decoders, required)

    def _decoder(self, annotation: Any, where: str) -> Decoder:
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        if annotation is Any:
            return _json_decoder
        if annotation in _SCALARS:
            return _SCALARS[annotation]
        if origin in (Union, types.UnionType):
            return _union_decoder([self._decoder(arg, where) for arg in args], args)
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return _sequence_decoder(self._decoder(args[0], where), tuple)
        if origin is tuple and args:
            return _fixed_tuple_decoder([self._decoder(arg, where) for arg in args])
        if origin is list or annotation is list:
            return _sequence_decoder(self._decoder(args[0] if args else Any, where), list)
        if (origin is dict or annotation is dict) and (not args or args[0] is str):
            return _mapping_decoder(self._decoder(args[1] if args else Any, where))
        if annotation is np.ndarray or origin is np.ndarray:
            return _array_decoder
        if isinstance(annotation, type) and (dataclasses.is_dataclass(annotation) or has_hook(annotation)):
            return self._class_decoder(annotation, where)
        raise ConfigurationError(
            f"{where}: the service has no JSON form for the annotation {annotation!r}; use numbers, strings, "
            "tuples, lists, dicts with string keys, numpy arrays or dataclasses of those"
        )


def state_to_json(value: Any) -> Any:
    """``value`` (a MazeState or MazeAction, numpy values, tuples) in its JSON data form (what :class:`DataState` reads)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if has_hook(type(value)):
        return state_to_json(value.to_data())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            field.name: state_to_json(getattr(value, field.name)) for field in dataclasses.fields(value) if field.init
        }
    if isinstance(value, dict):
        return {str(key): state_to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [state_to_json(item) for item in value]
    return value


def _kind(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _int(value: Any, field: str) -> int:
    if type(value) is not int:
        raise FieldError(field, f"must be an integer, got {_kind(value)}")
    if not -INT_BOUND <= value < INT_BOUND:
        raise FieldError(field, f"must be a 64-bit integer, got {_kind(value)}")
    return value


def _float(value: Any, field: str) -> float:
    if type(value) not in (int, float):
        raise FieldError(field, f"must be a number, got {_kind(value)}")
    if not math.isfinite(value):
        raise FieldError(field, f"must be finite, got {value}")
    return float(value)


def _exact(kind: type, what: str) -> Decoder:
    def decode(value: Any, field: str) -> Any:
        if type(value) is not kind:
            raise FieldError(field, f"must be {what}, got {_kind(value)}")
        return value

    return decode


_SCALARS: dict[Any, Decoder] = {
    int: _int,
    float: _float,
    bool: _exact(bool, "true or false"),
    str: _exact(str, "a string"),
    type(None): _exact(type(None), "null"),
}


def _json_decoder(value: Any, field: str) -> Any:
    """An unannotated field: the JSON value as it is (non-finite numbers refused)."""
    if type(value) is float and not math.isfinite(value):
        raise FieldError(field, f"must be finite, got {value}")
    if isinstance(value, list):
        return [_json_decoder(item, f"{field}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: _json_decoder(item, f"{field}.{key}") for key, item in value.items()}
    return value


def _union_decoder(options: list[Decoder], args: tuple[Any, ...]) -> Decoder:
    """``Optional[X]``: null, else X (X's own error); other unions: the first option that fits."""
    others = [option for option, arg in zip(options, args, strict=True) if arg is not type(None)]
    optional = len(others) < len(options)
    names = " or ".join("null" if arg is type(None) else getattr(arg, "__name__", str(arg)) for arg in args)

    def decode(value: Any, field: str) -> Any:
        if value is None and optional:
            return None
        if len(others) == 1:
            return others[0](value, field)
        for option in others:
            try:
                return option(value, field)
            except FieldError:
                continue
        raise FieldError(field, f"must be {names}, got {_kind(value)}")

    return decode


def _sequence_decoder(item: Decoder, kind: type) -> Decoder:
    def decode(value: Any, field: str) -> Any:
        if type(value) is not list:
            raise FieldError(field, f"must be a list, got {_kind(value)}")
        return kind(item(entry, f"{field}[{index}]") for index, entry in enumerate(value))

    return decode


def _fixed_tuple_decoder(items: list[Decoder]) -> Decoder:
    def decode(value: Any, field: str) -> tuple[Any, ...]:
        if type(value) is not list or len(value) != len(items):
            raise FieldError(field, f"must be a list of {len(items)} entries, got {_kind(value)}")
        return tuple(
            item(entry, f"{field}[{index}]") for index, (item, entry) in enumerate(zip(items, value, strict=True))
        )

    return decode


def _mapping_decoder(item: Decoder) -> Decoder:
    def decode(value: Any, field: str) -> dict[str, Any]:
        if type(value) is not dict:
            raise FieldError(field, f"must be an object, got {_kind(value)}")
        return {key: item(entry, f"{field}.{key}") for key, entry in value.items()}

    return decode


def _array_decoder(value: Any, field: str) -> np.ndarray:
    try:
        array = np.asarray(value)
    except ValueError:
        raise FieldError(field, "must be a rectangular array (nested lists of numbers), got ragged lists") from None
    if array.dtype.kind not in "biuf" or array.size > MAX_ARRAY_VALUES:
        raise FieldError(field, f"must be nested lists of numbers, got {_kind(value)}")
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise FieldError(field, "holds a non-finite number")
    return array


def _hooked_decoder(cls: type) -> Decoder:
    def decode(value: Any, field: str) -> Any:
        try:
            return cls.from_data(_json_decoder(value, field))
        except (TypeError, ValueError, KeyError, IndexError) as error:
            raise FieldError(
                field, f"is no data form of {cls.__qualname__} ({type(error).__name__}: {error})"
            ) from None

    return decode


def _dataclass_decoder(cls: type, fields: dict[str, Decoder], required: set[str]) -> Decoder:
    def decode(value: Any, field: str) -> Any:
        if type(value) is not dict:
            raise FieldError(
                field, f"must be an object of the fields {list(fields)} of {cls.__qualname__}, got {_kind(value)}"
            )
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise FieldError(f"{field}.{unknown[0]}", f"is no field of {cls.__qualname__} (fields: {list(fields)})")
        missing = [name for name in fields if name in required and name not in value]
        if missing:
            raise FieldError(f"{field}.{missing[0]}", "is missing")
        decoded = {name: fields[name](item, f"{field}.{name}") for name, item in value.items()}
        try:
            return cls(**decoded)
        except (TypeError, ValueError) as error:
            raise FieldError(field, f"is no valid {cls.__qualname__} ({error})") from None

    return decode
