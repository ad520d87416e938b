"""Checks of runner constructor arguments, with messages naming the config key."""

from __future__ import annotations

from typing import Any

from maze.env.errors import ConfigurationError

__all__ = ["checked_bool", "checked_int"]


def checked_int(name: str, value: Any, minimum: int) -> int:
    """``value`` if it is an int of at least ``minimum``.

    Raises:
        ConfigurationError: Naming ``runner.<name>`` and the value.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"runner.{name} must be an int of at least {minimum}, got {value!r}")
    return value


def checked_bool(name: str, value: Any) -> bool:
    """``value`` if it is a bool.

    Raises:
        ConfigurationError: Naming ``runner.<name>`` and the value.
    """
    if not isinstance(value, bool):
        raise ConfigurationError(f"runner.{name} must be true or false, got {value!r}")
    return value
