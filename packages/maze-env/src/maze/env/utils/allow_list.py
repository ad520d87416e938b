"""Which objects data from elsewhere may name: one allow-list for pickles and configs.

Trajectory files (pickles) and a run directory's configs (``_target_`` paths) name Python
objects by module and qualified name, and loading them calls what they name. Both loaders
resolve names with :meth:`AllowList.resolve`, which judges the *object a name resolves to*,
never the text of the name:

* the module is imported only if it lies in an allowed package (nothing else is imported);
* a dotted qualified name is followed only through classes that are themselves allowed,
  never through a module, function or other attribute (``maze.x.os.system`` and
  ``maze.x.operator.attrgetter`` are refused however ``maze.x`` imports them);
* the object is accepted only if a rule admits it: a class (or marked function) whose own
  ``__module__`` lies in an allowed package, or one of the explicitly listed objects
  (identity, not name);
* callable "gadgets" are never accepted, whatever module defines them: metaclasses (``type``),
  ``functools.partial``, ``operator``'s getters and callers, function, method and code types.

What each loader allows differs (pickles need numpy's reconstruction helpers, configs need
``torch.nn`` classes): ``safe_unpickler.PICKLE_ALLOW_LIST`` and ``trust.CONFIG_ALLOW_LIST`` are the two.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import operator
import types
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeVar

__all__ = [
    "AllowList",
    "ModuleRule",
    "RefusedName",
    "is_gadget",
    "is_trajectory_data",
    "module_of",
    "trajectory_data",
    "within",
]

GADGET_TYPES: tuple[type, ...] = (
    type,
    functools.partial,
    functools.partialmethod,
    operator.attrgetter,
    operator.itemgetter,
    operator.methodcaller,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.CodeType,
    types.ModuleType,
    property,
    staticmethod,
    classmethod,
    super,
)
"""Classes whose instances call or fetch something they are given: never allowed, nor their subclasses."""


class RefusedName(Exception):
    """A name the allow-list refuses; ``reason`` says why (the loaders turn it into their own error).

    Args:
        name: The full dotted name (``module.qualname``).
        reason: Why it was refused, for messages.
    """

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason


def within(module: str, packages: Iterable[str]) -> bool:
    """True if ``module`` is one of ``packages`` or a submodule of one."""
    return any(module == package or module.startswith(f"{package}.") for package in packages)


_TRAJECTORY_DATA_MARK = "__maze_trajectory_data__"

ClassT = TypeVar("ClassT", bound=type)


def trajectory_data(cls: ClassT) -> ClassT:
    """Marks a maze class whose instances trajectory files may hold (a class decorator).

    Only mark a class whose construction and state restoration store the values given
    and do nothing else (no files, processes, imports or loading): unpickling a file calls
    its constructor (or ``__new__``) and ``__setstate__`` with whatever the file holds.
    The mark is not inherited: a subclass is judged on its own.
    """
    setattr(cls, _TRAJECTORY_DATA_MARK, True)
    return cls


def is_trajectory_data(obj: Any) -> bool:
    """True for a class marked with :func:`trajectory_data` itself (not through a base class)."""
    return isinstance(obj, type) and vars(obj).get(_TRAJECTORY_DATA_MARK) is True


def module_of(obj: Any) -> str:
    """The module an object says it is defined in (``''`` if it says nothing usable)."""
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) else ""


def is_gadget(obj: Any) -> bool:
    """True for callables that can chain into arbitrary calls (see :data:`GADGET_TYPES`)."""
    if isinstance(obj, type):
        return issubclass(obj, GADGET_TYPES)
    return isinstance(obj, (functools.partial, operator.attrgetter, operator.itemgetter, operator.methodcaller))


@dataclass(frozen=True)
class ModuleRule:
    """Admits the objects of one package that satisfy a predicate.

    Attributes:
        package: The package (or module); its submodules are included.
        admits: Decides for an object whose ``__module__`` lies in ``package``.
        what: Names what the rule admits, for messages (e.g. ``'maze classes'``).
    """

    package: str
    admits: Callable[[Any], bool]
    what: str


@dataclass(frozen=True)
class AllowList:
    """The objects a loader of untrusted data may resolve (see the module docs).

    Attributes:
        rules: Per-package rules, judged on the resolved object's own ``__module__``.
        objects: The ``id`` s of further objects allowed by identity (e.g. ``copyreg._reconstructor``).
        object_modules: The modules those objects are named by (they may be imported).
        user_modules: Modules the user trusts explicitly: their classes and functions.
    """

    rules: tuple[ModuleRule, ...]
    objects: frozenset[int] = frozenset()
    object_modules: frozenset[str] = frozenset()
    user_modules: tuple[str, ...] = ()
    _keep_alive: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    @classmethod
    def of(
        cls,
        rules: Sequence[ModuleRule],
        objects: Mapping[str, Iterable[str]] = MappingProxyType({}),
        user_modules: Iterable[str] = (),
    ) -> AllowList:
        """Builds an allow-list.

        Args:
            rules: The per-package rules.
            objects: Module -> names of further allowed objects; they are resolved here (a module that
                cannot be imported, such as numpy 1.x's ``numpy.core`` on numpy 3, is skipped) and
                allowed by identity.
            user_modules: Modules the user trusts explicitly.
        """
        allowed: list[Any] = []
        modules: list[str] = []
        for module_name, names in objects.items():
            with warnings.catch_warnings():  # numpy 2 warns on its numpy.core aliases
                warnings.simplefilter("ignore", DeprecationWarning)
                try:
                    module = importlib.import_module(module_name)
                    allowed.extend(getattr(module, name) for name in names if hasattr(module, name))
                except ImportError:
                    continue
            modules.append(module_name)
        return cls(
            rules=tuple(rules),
            objects=frozenset(id(obj) for obj in allowed),
            object_modules=frozenset(modules),
            user_modules=tuple(str(module) for module in user_modules if module),
            _keep_alive=tuple(allowed),
        )

    def with_user_modules(self, user_modules: Iterable[str]) -> AllowList:
        """The same allow-list, also trusting ``user_modules``."""
        extra = tuple(str(module) for module in user_modules if module)
        return dataclasses.replace(self, user_modules=(*self.user_modules, *extra))

    @property
    def packages(self) -> tuple[str, ...]:
        """The packages whose objects some rule may admit (for messages)."""
        return tuple(rule.package for rule in self.rules)

    def may_import(self, module: str) -> bool:
        """Whether ``module`` may be imported at all (before anything is imported)."""
        return within(module, self.packages) or within(module, self.user_modules) or module in self.object_modules

    def check_importable(self, module: str) -> None:
        """Raises :class:`RefusedName` unless ``module`` may be imported."""
        if not self.may_import(module):
            raise RefusedName(module, "its module is not allowed, so nothing of it was imported")

    def resolve(self, module: str, qualname: str) -> Any:
        """Imports ``module`` and returns the object ``qualname`` names in it, if allowed.

        Args:
            module: The module's dotted name (``maze.env.core.events``).
            qualname: The object's qualified name in it (``ActorID`` or ``Outer.Inner``).

        Raises:
            RefusedName: The module is not allowed (nothing is imported), the name does not
                exist, passes through something other than an allowed class, or resolves to
                an object no rule admits.
        """
        name = f"{module}.{qualname}"
        self.check_importable(module)
        try:
            target: Any = importlib.import_module(module)
        except ImportError as error:
            raise RefusedName(name, f"its module cannot be imported ({error})") from None
        return self.follow(target, module, qualname.split("."))

    def follow(self, target: Any, prefix: str, parts: Sequence[str]) -> Any:
        """Follows ``parts`` from ``target`` (an allowed module) and judges the object reached.

        Raises:
            RefusedName: As :meth:`resolve` (``AttributeError`` for a name that does not exist).
        """
        path = prefix
        for position, part in enumerate(parts):
            if position > 0 and not self.may_follow(target):
                raise RefusedName(
                    f"{prefix}.{'.'.join(parts)}",
                    f"it reaches {part!r} through {path!r}, which is a {_kind(target)}, not an allowed class; "
                    "name an object by the module that defines it",
                )
            if not hasattr(target, part):
                raise AttributeError(f"{path!r} has no attribute {part!r}")
            target = getattr(target, part)
            path = f"{path}.{part}"
        self.judge(path, target)
        return target

    def judge(self, name: str, obj: Any) -> None:
        """Raises :class:`RefusedName` unless ``obj`` is allowed (``name`` is for the message)."""
        if is_gadget(obj):
            raise RefusedName(name, f"it is a {_kind(obj)}, which can call arbitrary code and is never allowed")
        if id(obj) in self.objects:
            return
        defined_in = module_of(obj)
        if isinstance(obj, (type, types.FunctionType)) and within(defined_in, self.user_modules):
            return
        for rule in self.rules:
            if within(defined_in, (rule.package,)) and rule.admits(obj):
                return
        where = f"defined in {defined_in!r}" if defined_in else "of no module"
        allowed = ", ".join(rule.what for rule in self.rules)
        raise RefusedName(name, f"it is a {_kind(obj)} {where}; only {allowed} are allowed")

    def may_follow(self, obj: Any) -> bool:
        """Whether a dotted name may pass through ``obj``: only an allowed class (never a module or function)."""
        if not isinstance(obj, type) or is_gadget(obj):
            return False
        try:
            self.judge("", obj)
        except RefusedName:
            return False
        return True


def _kind(obj: Any) -> str:
    """A short description of what ``obj`` is, for messages."""
    if isinstance(obj, types.ModuleType):
        return "module"
    if isinstance(obj, type):
        return "metaclass" if issubclass(obj, type) else f"class ({obj.__module__}.{obj.__qualname__})"
    if callable(obj):
        return f"callable {type(obj).__name__}"
    return f"{type(obj).__name__} value"
