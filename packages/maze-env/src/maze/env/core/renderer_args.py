"""Extra arguments a renderer exposes, so that trajectory viewers can offer them as widgets.

A renderer lists its arguments in ``Renderer.get_renderer_args()``. A viewer turns each
into a widget (an :class:`IntRangeArg` into an integer slider, an :class:`OptionsArrayArg`
into a dropdown), starts it at :attr:`RendererArg.default` and passes the chosen values to
``renderer.render(maze_state, maze_action, events, **{arg.name: value})``. Renderers can
call :meth:`RendererArg.validate` on what they receive.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from numbers import Integral
from typing import Any

from maze.env.errors import ConfigurationError

__all__ = ["RendererArg", "IntRangeArg", "OptionsArrayArg"]


class RendererArg(ABC):
    """One keyword argument of ``Renderer.render`` with the values it may take.

    Args:
        name: Keyword under which the value is passed to ``render`` (a Python identifier).
        title: Human-readable label of the widget.
    """

    def __init__(self, name: str, title: str) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigurationError(
                f"{type(self).__name__}: name must be a Python identifier (it becomes a keyword argument of "
                f"render), got {name!r}"
            )
        if not isinstance(title, str):
            raise ConfigurationError(f"{type(self).__name__} {name!r}: title must be a string, got {title!r}")
        self.name = name
        self.title = title

    @property
    @abstractmethod
    def allowed_values(self) -> Sequence[Any]:
        """Every value the argument may take, in display order."""

    @property
    def default(self) -> Any:
        """The value a viewer starts with: the first allowed value."""
        return self.allowed_values[0]

    def validate(self, value: Any) -> Any:
        """Returns ``value`` when it is allowed.

        Raises:
            ValueError: ``value`` is not allowed; the message names the argument and the
                allowed values.
        """
        if not self._allows(value):
            raise ValueError(f"renderer argument {self.name!r} got {value!r}; {self._describe_allowed()}")
        return value

    def _allows(self, value: Any) -> bool:
        return value in self.allowed_values

    @abstractmethod
    def _describe_allowed(self) -> str:
        """Describes the allowed values for error messages."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, title={self.title!r}, {self._describe_allowed()})"


def _checked_int(owner: str, name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ConfigurationError(f"{owner}: {name} must be an int, got {value!r}")
    return int(value)


class IntRangeArg(RendererArg):
    """An integer between ``min_value`` and ``max_value`` (both included); shown as a slider.

    Args:
        name: Keyword under which the value is passed to ``render``.
        title: Label of the slider.
        min_value: Smallest allowed value.
        max_value: Largest allowed value (at least ``min_value``).
    """

    def __init__(self, name: str, title: str, min_value: int, max_value: int) -> None:
        super().__init__(name, title)
        owner = f"IntRangeArg {name!r}"
        self.min_value = _checked_int(owner, "min_value", min_value)
        self.max_value = _checked_int(owner, "max_value", max_value)
        if self.max_value < self.min_value:
            raise ConfigurationError(
                f"{owner}: max_value ({max_value}) must not be smaller than min_value ({min_value})"
            )

    @property
    def allowed_values(self) -> range:
        """``range(min_value, max_value + 1)``."""
        return range(self.min_value, self.max_value + 1)

    def _allows(self, value: Any) -> bool:
        return not isinstance(value, bool) and isinstance(value, Integral) and value in self.allowed_values

    def _describe_allowed(self) -> str:
        return f"allowed are integers from {self.min_value} to {self.max_value}"


class OptionsArrayArg(RendererArg):
    """One value out of a fixed list of options; shown as a dropdown.

    Args:
        name: Keyword under which the value is passed to ``render``.
        title: Label of the dropdown.
        options: The allowed values, in display order (at least one, no duplicates).
    """

    def __init__(self, name: str, title: str, options: Sequence[Any]) -> None:
        super().__init__(name, title)
        owner = f"OptionsArrayArg {name!r}"
        if isinstance(options, (str, bytes)) or not isinstance(options, Sequence) or len(options) == 0:
            raise ConfigurationError(f"{owner}: options must be a non-empty list of values, got {options!r}")
        duplicates = sorted({repr(option) for index, option in enumerate(options) if option in options[:index]})
        if duplicates:
            raise ConfigurationError(f"{owner}: options must be distinct; repeated: {', '.join(duplicates)}")
        self.options = tuple(options)

    @property
    def allowed_values(self) -> tuple[Any, ...]:
        """The options."""
        return self.options

    def _describe_allowed(self) -> str:
        return f"allowed are {list(self.options)!r}"
