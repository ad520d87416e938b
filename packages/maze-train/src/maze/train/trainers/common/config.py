"""AlgorithmConfig: the ``algorithm`` config group as a validated dataclass, keys mapping 1:1 onto fields.

Every trainer's config derives from :class:`AlgorithmConfig`. Building it with
:meth:`AlgorithmConfig.from_config` checks, before any env or model exists, that

* every key is a field (unknown keys get the closest field name),
* every value has the field's annotated type (``int``, ``float``, ``bool``, ``str``,
  ``Optional[...]``; ``Any`` is not checked; an ``int`` is a valid ``float``),
* every value lies in the field's range, declared with :func:`bounded`.

A failure raises one :class:`ConfigurationError` line naming ``algorithm.<key>``, the value
and what is allowed.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional, TypeVar, Union

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import to_plain_config

__all__ = ["AlgorithmConfig", "Bounds", "bounded"]

ConfigT = TypeVar("ConfigT", bound="AlgorithmConfig")


@dataclass(frozen=True)
class Bounds:
    """The allowed range of a numeric key (None: no limit on that side).

    Attributes:
        gt: Values must be greater than this.
        ge: Values must be at least this.
        lt: Values must be less than this.
        le: Values must be at most this.
    """

    gt: Optional[float] = None
    ge: Optional[float] = None
    lt: Optional[float] = None
    le: Optional[float] = None

    def contains(self, value: float) -> bool:
        """True if ``value`` is finite and within all limits."""
        if not math.isfinite(value):
            return False
        return not (
            (self.gt is not None and value <= self.gt)
            or (self.ge is not None and value < self.ge)
            or (self.lt is not None and value >= self.lt)
            or (self.le is not None and value > self.le)
        )

    def describe(self) -> str:
        """The range as text, e.g. ``> 0`` or ``> 0 and <= 1``."""
        parts = [
            f"{symbol} {limit:g}"
            for symbol, limit in ((">", self.gt), (">=", self.ge), ("<", self.lt), ("<=", self.le))
            if limit is not None
        ]
        return " and ".join(parts) or "finite"


def bounded(
    default: Any,
    *,
    gt: Optional[float] = None,
    ge: Optional[float] = None,
    lt: Optional[float] = None,
    le: Optional[float] = None,
) -> Any:
    """A dataclass field with a default and an allowed range, checked by :meth:`AlgorithmConfig.from_config`.

    Example: ``lr: float = bounded(3e-4, gt=0)``, ``gamma: float = bounded(0.99, gt=0, le=1)``.
    ``None`` (for ``Optional`` fields) is always allowed.
    """
    return dataclasses.field(default=default, metadata={"bounds": Bounds(gt=gt, ge=ge, lt=lt, le=le)})


@dataclass
class AlgorithmConfig:
    """Base of the algorithm configs; subclasses are dataclasses whose fields are the YAML keys."""

    @classmethod
    def from_config(cls: type[ConfigT], config: Any) -> ConfigT:
        """Builds and validates the config from a mapping (dict or DictConfig).

        Raises:
            ConfigurationError: For keys that are no fields (with the closest field name),
                values of the wrong type and values outside their range.
        """
        if isinstance(config, cls):
            config.validate()
            return config
        values = to_plain_config(config)
        if not isinstance(values, Mapping):
            raise ConfigurationError(f"{cls.__name__} needs a mapping of its keys, got {config!r}")
        fields = [field.name for field in dataclasses.fields(cls)]
        unknown = [key for key in values if key not in fields]
        if unknown:
            hints = [
                f"{key!r} (did you mean {match[0]!r}?)"
                if (match := difflib.get_close_matches(key, fields, 1))
                else repr(key)
                for key in unknown
            ]
            raise ConfigurationError(f"{cls.__name__} has no key {', '.join(hints)}; its keys are {', '.join(fields)}")
        instance = cls(**values)
        instance.validate()
        return instance

    def validate(self) -> None:
        """Checks the type and range of every key (see the module docs).

        Raises:
            ConfigurationError: Naming the first bad key, its value and what is allowed.
        """
        hints = typing.get_type_hints(type(self))
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            expected = hints.get(field.name, Any)
            if not _has_type(value, expected):
                raise ConfigurationError(f"algorithm.{field.name}={value!r} is not a valid {_type_name(expected)}")
            bounds: Optional[Bounds] = field.metadata.get("bounds")
            if bounds is not None and value is not None and not bounds.contains(float(value)):
                raise ConfigurationError(
                    f"algorithm.{field.name}={value!r} is out of range; it must be {bounds.describe()}"
                )


def _optional_args(expected: Any) -> tuple[Any, ...]:
    """The member types of a Union/Optional annotation (empty for other annotations)."""
    return typing.get_args(expected) if typing.get_origin(expected) is Union else ()


def _has_type(value: Any, expected: Any) -> bool:
    """Whether ``value`` fits the annotation (only plain scalar types and Optionals are checked)."""
    members = _optional_args(expected)
    if members:
        return any(_has_type(value, member) for member in members)
    if expected is type(None):
        return value is None
    if expected is bool:
        return isinstance(value, bool)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if expected is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected is str:
        return isinstance(value, str)
    return True


def _type_name(expected: Any) -> str:
    members = _optional_args(expected)
    if members:
        return " or ".join("null" if member is type(None) else _type_name(member) for member in members)
    return {bool: "boolean (true/false)", int: "integer", float: "number", str: "string"}.get(
        expected, getattr(expected, "__name__", str(expected))
    )
