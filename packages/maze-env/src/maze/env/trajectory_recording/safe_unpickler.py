"""Loading trajectory files without running code from them: an allow-listed unpickler.

Trajectory files are pickles (they hold MazeStates, MazeActions and renderers of any env).
An ordinary unpickler imports and calls whatever the file names, so a crafted file runs
code. :class:`SafeUnpickler` resolves every name with the shared
:class:`~maze.env.utils.allow_list.AllowList` (the one run-directory configs are built
with), which judges the object a name resolves to, never the text of the name. It admits

* of maze's own classes only those that are plain data: the classes marked with
  :func:`~maze.env.utils.allow_list.trajectory_data` (records, step event logs, the example
  envs' states, actions and renderers), event topics (classes holding nothing but event
  methods) and the event methods event records refer to (functions whose body is only a
  docstring, so calling them does nothing). Any other maze class is refused: a file could
  call its constructor or ``__setstate__`` with arguments of its choosing (a dataset told
  to load unsafely, a process started in a directory of the file's choosing).
* the classes and functions defined in the modules the user trusts explicitly (their env's
  state and action classes: ``trusted_modules``),
* numpy's array (``numpy.ndarray`` itself: subclasses such as ``numpy.memmap`` open files),
  dtype and scalar classes, gymnasium's space classes, and plain containers and values
  (dict, list, tuple, set, OrderedDict, defaultdict, deque, UUID, datetime, ...),
* the standard reconstruction helpers of pickle (``copyreg``) and numpy's array
  reconstruction functions, by identity,

follows a dotted name (protocol 4 and 5) only through allowed classes, never through a module
(``maze.x.operator.attrgetter``, ``maze.x.os.system``), never admits callable gadgets
(``operator`` getters and callers, ``functools.partial``, metaclasses, builtins such as
``eval`` or ``getattr``), and imports nothing outside the allowed packages. While a file loads,
any config a maze class builds is restricted the same way
(:func:`~maze.env.utils.trust.trusted_targets_only`). A refusal names the object and why.

Why pickle at all: a MazeState is whatever class the user's env defines, and the documented
layout stores one pickled record per episode. The allow-list never lets a file call anything
but the constructors of allowed classes; where that is not enough, load only files you made.
"""

from __future__ import annotations

import builtins
import collections
import copyreg
import datetime
import io
import pickle
import uuid
from collections.abc import Iterable
from typing import Any, BinaryIO

import numpy as np
from gymnasium import spaces
from maze.env.errors import MazeError
from maze.env.utils.allow_list import AllowList, ModuleRule, RefusedName, is_trajectory_data, within
from maze.env.utils.trust import trusted_targets_only

__all__ = ["SafeUnpickler", "UnsafeTrajectoryError", "safe_load", "safe_loads"]


class UnsafeTrajectoryError(MazeError, pickle.UnpicklingError):
    """A pickle names a class or function outside the allow-list."""


def _is_maze_data(obj: Any) -> bool:
    """Maze classes marked as trajectory data, event topics and event methods."""
    return is_trajectory_data(obj) or _is_event_topic(obj) or _is_event_stub(obj)


def _is_numpy_type(obj: Any) -> bool:
    """``numpy.ndarray`` and numpy's dtype and scalar classes (e.g. ``numpy.float32``, ``numpy.dtypes.Float32DType``).

    Subclasses of ``ndarray`` are refused: ``numpy.memmap`` opens (and creates) the file it is given.
    """
    return obj is np.ndarray or (isinstance(obj, type) and issubclass(obj, (np.generic, np.dtype)))


def _is_space(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, spaces.Space)


_PLAIN_OBJECTS: dict[str, tuple[str, ...]] = {
    builtins.__name__: (
        *("dict", "list", "tuple", "set", "frozenset", "int", "float", "complex", "bool", "str", "bytes"),
        *("bytearray", "slice", "range", "object", "Ellipsis", "NotImplemented"),
    ),
    copyreg.__name__: ("_reconstructor", "__newobj__", "__newobj_ex__"),
    collections.__name__: ("OrderedDict", "defaultdict", "deque", "Counter"),
    uuid.__name__: ("UUID", "SafeUUID"),
    datetime.__name__: ("datetime", "date", "time", "timedelta", "timezone"),
    **{f"numpy.{core}.multiarray": ("_reconstruct", "scalar") for core in ("core", "_core")},
    **{f"numpy.{core}.numeric": ("_frombuffer",) for core in ("core", "_core")},
}
"""Module -> names of the plain objects unpickling may resolve (allowed by identity)."""

PICKLE_ALLOW_LIST = AllowList.of(
    [
        ModuleRule("maze", _is_maze_data, "maze's trajectory data classes, event topics and event methods"),
        ModuleRule("numpy", _is_numpy_type, "numpy array, dtype and scalar classes"),
        ModuleRule("gymnasium.spaces", _is_space, "gymnasium spaces"),
    ],
    objects=_PLAIN_OBJECTS,
)
"""What trajectory files may name (plus the modules the user trusts)."""


class SafeUnpickler(pickle.Unpickler):
    """An unpickler that resolves only allow-listed objects (see the module docs).

    Args:
        file: The binary file to read.
        trusted_modules: Further modules (or packages) whose classes and functions may be loaded.
    """

    def __init__(self, file: BinaryIO, trusted_modules: Iterable[str] = ()) -> None:
        super().__init__(file)
        self.trusted_modules = tuple(trusted_modules)
        self._allow_list = PICKLE_ALLOW_LIST.with_user_modules(self.trusted_modules)

    def load(self) -> Any:
        """Unpickles one object; configs that maze classes build meanwhile are restricted as well."""
        with trusted_targets_only("a trajectory file", self.trusted_modules):
            return super().load()

    def find_class(self, module: str, name: str) -> Any:
        """Resolves ``module.name`` if the allow-list admits the object it names.

        Raises:
            UnsafeTrajectoryError: Naming the object, why it is refused and, where it helps, how
                to trust it; nothing outside the allowed packages is imported.
        """
        try:
            return self._allow_list.resolve(module, name)
        except RefusedName as refused:
            raise UnsafeTrajectoryError(
                f"refusing to load {module}.{name}: {refused.reason}; loading it could run code. {_fix(module)}"
            ) from None
        except AttributeError as error:
            raise UnsafeTrajectoryError(f"cannot load {module}.{name}: {error}") from None


def _fix(module: str) -> str:
    """How to load a refused name anyway, where that can be sensible."""
    if within(module, PICKLE_ALLOW_LIST.packages) or module in PICKLE_ALLOW_LIST.object_modules:
        return "The file is crafted or corrupt; only if you trust it, load it with safe=False"
    return f"If you trust the file, trust the module: trusted_modules=['{module.split('.')[0]}']"


def _stub_method(self: Any) -> None:
    """An event method: a docstring and nothing else."""


def _is_event_stub(target: Any) -> bool:
    """True for functions that do nothing when called, such as the event methods events refer to."""
    code = getattr(target, "__code__", None)
    return code is not None and code.co_code == _stub_method.__code__.co_code and not code.co_names


_CLASS_BOOKKEEPING = frozenset(
    ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__annotations__", "__firstlineno__")
    + ("__static_attributes__", "__slotnames__")
)
"""Entries a class gets from Python itself (``__slotnames__``: ``copyreg`` caches it when pickling an instance)."""


def _is_event_topic(obj: Any) -> bool:
    """True for classes (and their bases) that hold nothing but event methods, such as ``BaseEnvEvents``.

    Building one runs no code of its own (no ``__init__``, ``__new__``, ``__setstate__`` or
    descriptors), so a file can name it as it names event methods.
    """
    if not isinstance(obj, type) or type(obj) is not type:
        return False
    return all(
        name in _CLASS_BOOKKEEPING or _is_event_stub(value)
        for klass in obj.__mro__[:-1]
        for name, value in vars(klass).items()
    )


def safe_load(file: BinaryIO, trusted_modules: Iterable[str] = ()) -> Any:
    """Unpickles one object from ``file`` with :class:`SafeUnpickler`."""
    return SafeUnpickler(file, trusted_modules).load()


def safe_loads(payload: bytes, trusted_modules: Iterable[str] = ()) -> Any:
    """Unpickles one object from ``payload`` with :class:`SafeUnpickler`."""
    return safe_load(io.BytesIO(payload), trusted_modules)
