"""AlgorithmConfig: the ``algorithm`` config group as a validated dataclass, keys mapping 1:1 onto fields.

Every trainer's config derives from :class:`AlgorithmConfig`. Building it with
:meth:`AlgorithmConfig.from_config` checks, before any env or model exists, that

* every key is a field (unknown keys get the closest field name),
* every value has the field's annotated type (``int``, ``float``, ``bool``, ``str``,
  ``Optional[...]``; ``Any`` is not checked; an ``int`` is a valid ``float``),
* every value lies in the field's range, declared with :func:`bounded`,
* every setting nested under a ``_target_`` (an optimizer, an evaluator, a policy) fits the
  target's signature (see :func:`validate_target_config`).

A failure raises one :class:`ConfigurationError` line naming ``algorithm.<key>``, the value
and what is allowed. :func:`validate_target_config` checks any ``_target_`` config the same
way (e.g. the ``runner`` node); targets declare the ranges of their arguments in their
signatures with ``typing.Annotated``: ``step_size: Annotated[float, Bounds(ge=0)]``.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Optional, TypeVar, Union

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target, to_plain_config
from maze.env.utils.suggestions import close_matches
from maze.train.bounds import Bounds

__all__ = ["AlgorithmConfig", "Bounds", "DEFAULT_ROLLOUT_EVALUATOR", "bounded", "validate_target_config"]

ConfigT = TypeVar("ConfigT", bound="AlgorithmConfig")

DEFAULT_ROLLOUT_EVALUATOR = {
    "_target_": "maze.train.evaluators.RolloutEvaluator",
    "deterministic": True,
    "n_episodes": 8,
}
"""The documented evaluator of ``algorithm/<name>.yaml``: 8 deterministic episodes after every epoch."""


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
    """Base of the algorithm configs; subclasses are dataclasses whose fields are the YAML keys.

    The budget keys are shared by every trainer and checked at every epoch end (see
    :mod:`maze.train.core.budget`): training stops at the first epoch end at or past one,
    after that epoch's evaluation, and writes its summary as after any other stop.

    Attributes:
        max_env_steps: Env steps to train in total, counting those of a resumed run (as ``n_epochs``
            does; None: no budget). The last epoch is completed, so a run may exceed it by less
            than one epoch's env steps.
        max_seconds: Wall-clock limit of the training loop in seconds, evaluations included
            (None: no limit); a run stops at the first epoch end past it.
    """

    max_env_steps: Optional[int] = bounded(None, ge=1)
    max_seconds: Optional[float] = bounded(None, gt=0)

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
                f"{key!r} (did you mean {match[0]!r}?)" if (match := close_matches(key, fields)) else repr(key)
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
            _check_value(f"algorithm.{field.name}", value, hints.get(field.name, Any), field.metadata.get("bounds"))
            validate_target_config(value, f"algorithm.{field.name}")


def validate_target_config(config: Any, key: str) -> None:
    """Checks the arguments of a ``_target_`` config, and of every ``_target_`` config nested in it.

    Each argument the target's signature annotates (its ``__init__`` along the class's MRO,
    so that arguments passed on through ``**kwargs`` count too) must have the annotated type;
    an annotation ``Annotated[<type>, Bounds(...)]`` also gives its range. Arguments without
    annotation, configs without ``_target_`` and targets that cannot be resolved are left to
    the factory that builds them.

    Args:
        config: Any config value; only mappings with a ``_target_`` are checked.
        key: The dotted config key of ``config``, for the messages (e.g. ``algorithm.optimizer``).

    Raises:
        ConfigurationError: Naming the first bad ``<key>.<argument>``, its value and what is allowed.
    """
    if not isinstance(config, Mapping) or "_target_" not in config:
        return
    hints = _signature_hints(config["_target_"])
    for name, value in config.items():
        if name != "_target_" and name in hints:
            expected, bounds = _split_annotated(hints[name])
            _check_value(f"{key}.{name}", value, expected, bounds)
        validate_target_config(value, f"{key}.{name}")


def _signature_hints(target: Any) -> dict[str, Any]:
    """The annotations (with ``Annotated`` extras) of a target's arguments; empty when they cannot be read."""
    try:
        resolved = resolve_target(str(target)) if isinstance(target, str) else target
    except ConfigurationError:
        return {}
    if isinstance(resolved, type):
        functions = [klass.__dict__["__init__"] for klass in resolved.__mro__ if "__init__" in vars(klass)]
    else:
        functions = [resolved]
    hints: dict[str, Any] = {}
    for function in functions:
        try:
            own = typing.get_type_hints(function, include_extras=True)
        except Exception:  # annotations naming what the target's module imports only for type checkers
            continue
        for name, hint in own.items():
            hints.setdefault(name, hint)
    hints.pop("return", None)
    return hints


def _split_annotated(hint: Any) -> tuple[Any, Optional[Bounds]]:
    """``(type, Bounds or None)`` of an annotation such as ``Annotated[float, Bounds(gt=0)]``."""
    if typing.get_origin(hint) is not Annotated:
        return hint, None
    bounds = next((extra for extra in hint.__metadata__ if isinstance(extra, Bounds)), None)
    return hint.__origin__, bounds


def _check_value(key: str, value: Any, expected: Any, bounds: Optional[Bounds]) -> None:
    """Raises a ConfigurationError naming ``key`` if ``value`` does not have the type or lies outside ``bounds``."""
    if not _has_type(value, expected):
        integral = isinstance(value, float) and value.is_integer() and _has_type(int(value), expected)
        fix = f"; write it as an integer: {key}={int(value)}" if integral else ""
        raise ConfigurationError(f"{key}={value!r} is not a valid {_type_name(expected)}{fix}")
    if bounds is not None and isinstance(value, (int, float)) and not bounds.contains(float(value)):
        raise ConfigurationError(f"{key}={value!r} is out of range; it must be {bounds.describe()}")


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
