"""Trusted targets: configs read from a run directory may only name maze's own classes.

A run directory can come from anywhere (a colleague, a download). Its YAML files
(``model_config.yaml``, ``.hydra/config.yaml``) name classes by dotted path, and building
them imports and calls what they name — so a crafted file could run any code. While
:func:`trusted_targets_only` is active, :func:`~maze.env.utils.factory.resolve_target`
judges every path with the shared :class:`~maze.env.utils.allow_list.AllowList`
(the one trajectory files are loaded with). It accepts only

* classes defined in maze's own packages (``maze.*``, judged by the class's own
  ``__module__``) and the functions maze marks with :func:`trusted_factory` (its env factories),
* classes defined in ``torch.nn`` (non-linearities, layers) and ``gymnasium.spaces``,
* classes and functions defined in the modules the user names explicitly (``trusted_modules``),

never follows a path through a module other than the one it starts in (``maze.x.torch.X``),
never accepts callable gadgets (``operator`` getters, ``functools.partial``, metaclasses), and
refuses a path outside these packages *before importing it*, with a message saying how to trust it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Optional, TypeVar

from maze.env.errors import ConfigurationError
from maze.env.utils.allow_list import AllowList, ModuleRule, RefusedName, is_gadget, within

__all__ = [
    "DEFAULT_TRUSTED_MODULES",
    "UntrustedTargetError",
    "check_trusted_class_builds",
    "check_trusted_path",
    "check_trusted_step",
    "check_trusted_target",
    "check_trust_not_widened",
    "modules_named_in",
    "trusted_factory",
    "trusted_targets_only",
]

DEFAULT_TRUSTED_MODULES = ("maze", "torch.nn", "gymnasium.spaces")
"""Packages whose classes a run directory's configs may name (maze also its marked factories)."""


def _is_class(obj: Any) -> bool:
    return isinstance(obj, type)


def _is_maze_class_or_factory(obj: Any) -> bool:
    return isinstance(obj, type) or getattr(obj, "__maze_trusted_factory__", False) is True


CONFIG_ALLOW_LIST = AllowList.of(
    [
        ModuleRule("maze", _is_maze_class_or_factory, "maze classes and env factories"),
        ModuleRule("torch.nn", _is_class, "torch.nn classes"),
        ModuleRule("gymnasium.spaces", _is_class, "gymnasium.spaces classes"),
    ]
)
"""What a run directory's configs may name (plus the user's trusted modules)."""

F = TypeVar("F")


class UntrustedTargetError(ConfigurationError):
    """A config read from a run directory names something outside the trusted modules."""


@dataclass(frozen=True)
class _Scope:
    source: str
    allow_list: AllowList


_SCOPE: ContextVar[Optional[_Scope]] = ContextVar("maze_trusted_targets", default=None)


def trusted_factory(function: F) -> F:
    """Marks a maze function as safe to name in a run directory's config (e.g. an env factory)."""
    function.__maze_trusted_factory__ = True  # type: ignore[attr-defined]
    return function


@contextlib.contextmanager
def trusted_targets_only(source: str, trusted_modules: Iterable[str] = ()) -> Iterator[None]:
    """Restricts target resolution to trusted modules while active (see the module docs).

    Inside an active scope (an object a run directory's config names builds its own configs,
    such as ``SerializedTorchPolicy`` with a stored model config) the nested scope keeps the
    outer one's allow-list: what a run directory names cannot trust further modules.

    Args:
        source: What the configs come from, for messages (e.g. ``'runs/x/model_config.yaml'``).
        trusted_modules: Further modules (or packages) the user trusts explicitly.

    Raises:
        UntrustedTargetError: A nested scope asks to trust modules the active scope does not trust.
    """
    outer = _SCOPE.get()
    if outer is None:
        allow_list = CONFIG_ALLOW_LIST.with_user_modules(trusted_modules)
    else:
        check_trust_not_widened(source, trusted_modules=trusted_modules)
        allow_list = outer.allow_list
    token = _SCOPE.set(_Scope(source, allow_list))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def check_trust_not_widened(what: str, *, safe: bool = True, trusted_modules: Iterable[str] = ()) -> None:
    """Inside an active scope, refuses to load files unsafely or to trust modules the scope does not trust.

    ``safe=False`` or ``trusted_modules`` in a run directory's config would let the files and
    configs it names run code: only the user's own call or command may ask for them.

    Args:
        what: What asks for it, for messages (e.g. ``'InMemoryDataset'`` or a file's path).
        safe: False asks to unpickle files without the allow-list.
        trusted_modules: Modules asked to be trusted (fine where the active scope trusts them already).

    Raises:
        UntrustedTargetError: Naming what asked, where its config came from and how to do it instead.
    """
    scope = _SCOPE.get()
    if scope is None:
        return
    if not safe:
        raise UntrustedTargetError(
            f"{scope.source} asks {what} to load files with safe=False (plain unpickling, which runs whatever code "
            "the files name); a run directory's config cannot turn safe loading off, so nothing was loaded. Load "
            "files you trust with safe=False from your own code or command"
        )
    widened = [module for module in trusted_modules if module and not within(module, scope.allow_list.user_modules)]
    if widened:
        raise UntrustedTargetError(
            f"{scope.source} asks {what} to trust the modules {widened}; a run directory's config cannot trust "
            "modules, so nothing was built or loaded. If you trust that run directory, trust the modules in your own "
            f"call or command: trusted_modules={widened}"
        )


def check_trusted_path(path: str) -> None:
    """Refuses a dotted path (module or module prefix) outside the trusted modules, before importing it.

    Raises:
        UntrustedTargetError: Naming the path, where it came from and how to trust it.
    """
    scope = _SCOPE.get()
    if scope is None or scope.allow_list.may_import(path):
        return
    top = path.split(".")[0]
    raise UntrustedTargetError(
        f"{scope.source} names {path!r}, which is not one of maze's own classes; nothing was imported or run. "
        f"Configs read from a run directory may only name maze, torch.nn and gymnasium.spaces classes. If you "
        f"trust that run directory, trust the module explicitly: trusted_modules=[{top}] (maze-run) or "
        f"trusted_modules=['{top}'] (Python)"
    )


def check_trusted_step(path: str, through: str, container: Any) -> None:
    """Refuses to follow a dotted path through ``container`` unless it is an allowed class.

    A path is followed from the module it starts in only through nested classes, never
    through another module or a function (``maze.x.os.system``).

    Args:
        path: The whole dotted path (for the message).
        through: The part of ``path`` that names ``container``.
        container: The object the next part of ``path`` would be looked up in.

    Raises:
        UntrustedTargetError: Naming the path and what it passes through.
    """
    scope = _SCOPE.get()
    if scope is None or scope.allow_list.may_follow(container):
        return
    raise UntrustedTargetError(
        f"{scope.source} names {path!r}, a path through {through!r}, which is a {type(container).__name__}, not an "
        "allowed class; nothing was built or run. A run directory's configs must name a class by the module that "
        "defines it"
    )


def check_trusted_target(path: str, target: Any) -> None:
    """Refuses what a path resolved to unless the allow-list admits the object itself.

    Raises:
        UntrustedTargetError: ``target`` is not a class defined in maze, torch.nn or
            gymnasium.spaces, nor a :func:`trusted_factory`, nor defined in a module the user
            trusts; or it is a callable gadget (never allowed).
    """
    scope = _SCOPE.get()
    if scope is None:
        return
    try:
        scope.allow_list.judge(path, target)
    except RefusedName as refused:
        defined_in = getattr(target, "__module__", None) or path.rsplit(".", 1)[0]
        hint = (
            ""
            if is_gadget(target)
            else f" If you trust that run directory, trust the module explicitly: trusted_modules=['{defined_in}']"
        )
        raise UntrustedTargetError(
            f"{scope.source} names {path!r}, which is refused: {refused.reason}; nothing was built or run.{hint}"
        ) from None


def check_trusted_class_builds(path: str, target: Any, base_type: type) -> None:
    """Refuses, before building it, a class from a run directory that cannot produce a ``base_type``.

    Raises:
        UntrustedTargetError: ``target`` is a class that is not a subclass of ``base_type``.
    """
    if _SCOPE.get() is None or not isinstance(target, type) or not isinstance(base_type, type):
        return
    try:
        builds = issubclass(target, base_type)
    except TypeError:  # a protocol that issubclass cannot judge: the type check after building decides
        return
    if not builds:
        raise UntrustedTargetError(
            f"{_SCOPE.get().source} names {path!r} where a {base_type.__name__} is needed, but it is a "
            f"{target.__name__}; nothing was built or run"
        )


def modules_named_in(config: Any) -> list[str]:
    """The modules of all dotted paths in ``_target_`` values of a (nested) config the user wrote.

    Used to trust what the user's own config names (e.g. their model composer's package). Modules
    of maze, torch.nn and gymnasium.spaces are left out: their classes are trusted anyway, and
    trusting them as the user's modules would admit their functions too.
    """
    return [module for module in _modules_named_in(config) if not within(module, DEFAULT_TRUSTED_MODULES)]


def _modules_named_in(config: Any) -> list[str]:
    found: list[str] = []
    if isinstance(config, dict):
        target = config.get("_target_")
        if isinstance(target, str) and "." in target:
            found.append(target.rsplit(".", 1)[0])
        for value in config.values():
            found.extend(_modules_named_in(value))
    elif isinstance(config, (list, tuple)):
        for value in config:
            found.extend(_modules_named_in(value))
    return list(dict.fromkeys(found))
