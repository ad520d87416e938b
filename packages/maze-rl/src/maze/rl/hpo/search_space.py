"""The search space of a hyper-parameter sweep: one dimension per config key.

Dimensions come from the sweeper's ``parametrization`` config and from sweep overrides on
the command line (the command line wins for the same key). Config entry / override:

* ``algorithm.lr: {lower: 1e-5, upper: 1e-3, log: true}`` /
  ``algorithm.lr=tag(log,interval(1e-5,1e-3))``: a (log-scaled) interval;
* ``algorithm.batch_size: {lower: 32, upper: 256, integer: true}`` /
  ``algorithm.batch_size=int(interval(32,256))``: an integer interval;
* ``algorithm.gamma: [0.95, 0.99]`` / ``algorithm.gamma=0.95,0.99``, ``choice(0.95,0.99)``
  or ``range(...)``: a choice;
* ``algorithm.n_epochs: 5`` / ``algorithm.n_epochs=5``: fixed for every job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from maze.env.errors import ConfigurationError

__all__ = ["Choice", "Dimension", "Interval", "SearchSpace"]


@dataclass(frozen=True)
class Interval:
    """A number between ``lower`` and ``upper`` (inclusive), linear or log-scaled, float or integer."""

    lower: float
    upper: float
    log: bool = False
    integer: bool = False

    def __post_init__(self) -> None:
        if not self.lower < self.upper:
            raise ConfigurationError(f"an interval needs lower < upper, got lower={self.lower}, upper={self.upper}")
        if self.log and self.lower <= 0:
            raise ConfigurationError(f"a log-scaled interval needs lower > 0, got {self.lower}")

    def describe(self) -> str:
        """E.g. ``log interval [1e-05, 0.001]``."""
        kind = ("log " if self.log else "") + ("integer " if self.integer else "") + "interval"
        return f"{kind} [{self.lower:g}, {self.upper:g}]"


@dataclass(frozen=True)
class Choice:
    """One of a list of options."""

    options: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not self.options:
            raise ConfigurationError("a choice needs at least one option")

    def describe(self) -> str:
        """E.g. ``choice of [0.95, 0.99]``."""
        return f"choice of {list(self.options)}"


Dimension = Union[Interval, Choice]


@dataclass
class SearchSpace:
    """Config key -> dimension, plus the overrides every job gets unchanged.

    Attributes:
        dimensions: The searched keys, in order.
        fixed: Command-line overrides passed to every job as they are (``key=value``).
    """

    dimensions: dict[str, Dimension] = field(default_factory=dict)
    fixed: list[str] = field(default_factory=list)

    @classmethod
    def from_sweep(cls, parametrization: Mapping[str, Any], arguments: Sequence[Any]) -> SearchSpace:
        """Builds the space from the ``parametrization`` config and parsed command-line overrides.

        Args:
            parametrization: Key -> ``{lower, upper, log?, integer?}``, a list of options, or a fixed value.
            arguments: Hydra ``Override`` objects of the command line.

        Raises:
            ConfigurationError: For malformed entries and a space without dimensions.
        """
        from maze.rl.hydra_config import hydra_override

        space = cls()
        for key, entry in parametrization.items():
            dimension = _dimension_of_entry(str(key), entry)
            if dimension is None:
                space.fixed.append(hydra_override(str(key), entry))
            else:
                space.dimensions[str(key)] = dimension
        for override in arguments:
            key = override.get_key_element()
            if override.is_sweep_override():
                space.dimensions[key] = _dimension_of_sweep(key, override.value())
            else:
                space.fixed = [line for line in space.fixed if not line.startswith(f"{key}=")]
                space.fixed.append(override.input_line)
        if not space.dimensions:
            raise ConfigurationError(
                "the sweep has nothing to optimize: set hydra.sweeper.parametrization (e.g. in an experiment file) or "
                "give sweep overrides such as 'algorithm.lr=tag(log,interval(0.00001,0.001))'"
            )
        return space


def _dimension_of_entry(key: str, entry: Any) -> Union[Dimension, None]:
    """The dimension of a ``parametrization`` entry (None: a fixed value)."""
    if isinstance(entry, Mapping):
        unknown = set(entry) - {"lower", "upper", "log", "integer"}
        if unknown or not {"lower", "upper"} <= set(entry):
            raise ConfigurationError(
                f"hydra.sweeper.parametrization.{key}: expected {{lower, upper}} with optional log and integer, "
                f"got {dict(entry)}"
            )
        lower, upper = entry["lower"], entry["upper"]
        log, integer = bool(entry.get("log", False)), bool(entry.get("integer", False))
        return Interval(float(lower), float(upper), log=log, integer=integer)
    if isinstance(entry, Sequence) and not isinstance(entry, str):
        return Choice(tuple(entry))
    return None


def _dimension_of_sweep(key: str, sweep: Any) -> Dimension:
    """The dimension of a command-line sweep (``choice``, ``range``, ``interval``, ``a,b,c``)."""
    from hydra.core.override_parser.types import ChoiceSweep, IntervalSweep, RangeSweep

    if isinstance(sweep, ChoiceSweep):
        return Choice(tuple(sweep.list))
    if isinstance(sweep, RangeSweep):
        return Choice(tuple(_plain_number(value) for value in sweep.range()))
    if isinstance(sweep, IntervalSweep):
        integer = isinstance(sweep.start, int) and isinstance(sweep.end, int)  # int(interval(...))
        return Interval(float(sweep.start), float(sweep.end), log="log" in sweep.tags, integer=integer)
    raise ConfigurationError(f"{key}: unsupported sweep {sweep!r}; use choice(...), range(...) or interval(...)")


def _plain_number(value: Any) -> Union[int, float]:
    number = float(value)
    return int(number) if number.is_integer() and not isinstance(value, float) else number
