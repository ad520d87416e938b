"""Trusted targets: configs read from a run directory may only name maze's own classes.

A run directory can come from anywhere (a colleague, a download). Its YAML files
(``model_config.yaml``, ``.hydra/config.yaml``) name classes by dotted path, and building
them imports and calls what they name — so a crafted file could run any code. While
:func:`trusted_targets_only` is active, :func:`~maze.env.utils.factory.resolve_target`
accepts only

* classes of maze's own packages (``maze.*``) and the functions maze marks with
  :func:`trusted_factory` (its env factories),
* classes of ``torch.nn`` (non-linearities, layers) and ``gymnasium.spaces``,
* anything in the modules the user names explicitly (``trusted_modules``),

and refuses everything else *before importing it*, with a message saying how to trust it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Optional, TypeVar

from maze.env.errors import ConfigurationError

__all__ = [
    "DEFAULT_TRUSTED_MODULES",
    "UntrustedTargetError",
    "check_trusted_path",
    "check_trusted_target",
    "modules_named_in",
    "trusted_factory",
    "trusted_targets_only",
]

DEFAULT_TRUSTED_MODULES = ("maze", "torch.nn", "gymnasium.spaces")
"""Modules whose classes a run directory's configs may name (maze also its marked factories)."""

F = TypeVar("F")


class UntrustedTargetError(ConfigurationError):
    """A config read from a run directory names something outside the trusted modules."""


@dataclass(frozen=True)
class _Scope:
    source: str
    user_modules: tuple[str, ...]


_SCOPE: ContextVar[Optional[_Scope]] = ContextVar("maze_trusted_targets", default=None)


def trusted_factory(function: F) -> F:
    """Marks a maze function as safe to name in a run directory's config (e.g. an env factory)."""
    function.__maze_trusted_factory__ = True  # type: ignore[attr-defined]
    return function


@contextlib.contextmanager
def trusted_targets_only(source: str, trusted_modules: Iterable[str] = ()) -> Iterator[None]:
    """Restricts target resolution to trusted modules while active (see the module docs).

    Args:
        source: What the configs come from, for messages (e.g. ``'runs/x/model_config.yaml'``).
        trusted_modules: Further modules (or packages) the user trusts explicitly.
    """
    token = _SCOPE.set(_Scope(source, tuple(str(module) for module in trusted_modules if module)))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def _within(path: str, modules: Iterable[str]) -> bool:
    return any(path == module or path.startswith(f"{module}.") for module in modules)


def check_trusted_path(path: str) -> None:
    """Refuses a dotted path outside the trusted modules (before anything is imported).

    Raises:
        UntrustedTargetError: Naming the path, where it came from and how to trust it.
    """
    scope = _SCOPE.get()
    if scope is None or _within(path, DEFAULT_TRUSTED_MODULES) or _within(path, scope.user_modules):
        return
    top = path.split(".")[0]
    raise UntrustedTargetError(
        f"{scope.source} names {path!r}, which is not one of maze's own classes; nothing was imported or run. "
        f"Configs read from a run directory may only name maze, torch.nn and gymnasium.spaces classes. If you "
        f"trust that run directory, trust the module explicitly: trusted_modules=[{top}] (maze-run) or "
        f"trusted_modules=['{top}'] (Python)"
    )


def check_trusted_target(path: str, target: Any) -> None:
    """Refuses functions (other than :func:`trusted_factory` ones) of the default trusted modules.

    Raises:
        UntrustedTargetError: ``target`` is a plain function or other callable of maze,
            torch.nn or gymnasium.spaces that is not marked as a trusted factory.
    """
    scope = _SCOPE.get()
    if scope is None or _within(path, scope.user_modules) or isinstance(target, type):
        return
    if getattr(target, "__maze_trusted_factory__", False):
        return
    raise UntrustedTargetError(
        f"{scope.source} names {path!r}, which is a function, not a class; configs read from a run directory "
        "may only name classes and maze's env factories. If you trust that run directory, trust the module "
        f"explicitly: trusted_modules=['{path.rsplit('.', 1)[0]}']"
    )


def modules_named_in(config: Any) -> list[str]:
    """The modules of all dotted paths in ``_target_`` values of a (nested) config the user wrote.

    Used to trust what the user's own config names (e.g. their model composer's package).
    """
    found: list[str] = []
    if isinstance(config, dict):
        target = config.get("_target_")
        if isinstance(target, str) and "." in target:
            found.append(target.rsplit(".", 1)[0])
        for value in config.values():
            found.extend(modules_named_in(value))
    elif isinstance(config, (list, tuple)):
        for value in config:
            found.extend(modules_named_in(value))
    return list(dict.fromkeys(found))
