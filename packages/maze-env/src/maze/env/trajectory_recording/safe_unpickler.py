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

An allowed name can still be handed harmful arguments: a structured dtype whose field lies
outside its element (memory corruption), ``bytearray(2_000_000_000)`` or a memo index of 10^8
(allocation bombs). Every call, object build and memo write is therefore checked by
:mod:`~maze.env.trajectory_recording.pickle_guards` (plain dtypes only, an allocation budget
proportional to the file's size, memo indices within the file). That needs the pure-Python
unpickler, about 9x slower than C's (a 200-step Cutting-2D episode: 9 ms instead of 1 ms): new
recordings use the data-only format, and this loader serves files of earlier versions.
"""

from __future__ import annotations

import builtins
import collections
import copyreg
import datetime
import io
import pickle
import struct
import uuid
from collections.abc import Iterable
from typing import Any, BinaryIO, Optional

import numpy as np
from gymnasium import spaces
from maze.env.errors import MazeError
from maze.env.trajectory_recording.pickle_guards import (
    AllocationBudget,
    CorruptPickleError,
    TrajectoryAllocationError,
    check_built,
    check_call,
    check_length,
    check_memo_index,
    check_result,
)
from maze.env.utils.allow_list import AllowList, ModuleRule, RefusedName, is_trajectory_data, within
from maze.env.utils.trust import trusted_targets_only

__all__ = ["SafeUnpickler", "TrajectoryAllocationError", "UnsafeTrajectoryError", "safe_load", "safe_loads"]


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


class SafeUnpickler(pickle._Unpickler):  # the pure-Python unpickler: each opcode can be checked
    """An unpickler that resolves only allow-listed objects and checks what they are asked to do.

    Names are judged by the allow-list (see the module docs); calls, object builds and memo
    writes by the guards of :mod:`~maze.env.trajectory_recording.pickle_guards` (plain dtypes
    only, an allocation budget, memo indices within the file). The file is read into memory
    first: its size sets the budget, and no read can ask for more bytes than it holds.

    Args:
        file: The binary file to read.
        trusted_modules: Further modules (or packages) whose classes and functions may be loaded.
        allocation_budget: Bytes the calls and builds the file asks for may allocate; ``None``
            allows 64 times the file's size plus 64 MiB.
    """

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(
        self, file: BinaryIO, trusted_modules: Iterable[str] = (), allocation_budget: Optional[int] = None
    ) -> None:
        payload = file.read()
        super().__init__(io.BytesIO(payload))
        self.trusted_modules = tuple(trusted_modules)
        self._allow_list = PICKLE_ALLOW_LIST.with_user_modules(self.trusted_modules)
        self._budget = AllocationBudget.for_file(len(payload), allocation_budget)

    def load(self) -> Any:
        """Unpickles one object; configs that maze classes build meanwhile are restricted as well.

        Raises:
            UnsafeTrajectoryError: A refused name, or a call, build or memo index no pickler writes.
            TrajectoryAllocationError: The file asks for more memory than its budget, or memory ran out.
        """
        try:
            with trusted_targets_only("a trajectory file", self.trusted_modules):
                return super().load()
        except CorruptPickleError as error:
            raise UnsafeTrajectoryError(str(error)) from None
        except MemoryError as error:
            if isinstance(error, TrajectoryAllocationError):
                raise
            raise self._budget.out_of_memory() from None

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

    def _instantiate(self, klass: Any, args: list[Any]) -> None:  # INST, OBJ (protocols 0 and 1)
        check_call(klass, tuple(args), self._budget)
        super()._instantiate(klass, args)
        check_result(self.stack[-1])

    def _load_reduce(self) -> None:  # REDUCE: func(*args)
        check_call(self.stack[-2], _arguments(self.stack[-1]), self._budget)
        pickle._Unpickler.load_reduce(self)
        check_result(self.stack[-1])

    def _load_newobj(self) -> None:  # NEWOBJ: cls.__new__(cls, *args)
        check_call(self.stack[-2], _arguments(self.stack[-1]), self._budget, initializes=False)
        pickle._Unpickler.load_newobj(self)
        check_result(self.stack[-1])

    def _load_newobj_ex(self) -> None:  # NEWOBJ_EX: cls.__new__(cls, *args, **kwargs)
        kwargs = self.stack[-1]
        if not isinstance(kwargs, dict):
            raise CorruptPickleError(f"keyword arguments are a {type(kwargs).__name__}, not a dict")
        check_call(self.stack[-3], (*_arguments(self.stack[-2]), *kwargs.values()), self._budget, initializes=False)
        pickle._Unpickler.load_newobj_ex(self)
        check_result(self.stack[-1])

    def _load_build(self) -> None:  # BUILD: obj.__setstate__(state)
        check_built(self.stack[-2], self.stack[-1], self._budget)
        pickle._Unpickler.load_build(self)
        check_result(self.stack[-1])

    def _load_put(self) -> None:  # PUT: the memo index as text
        self._memoize(int(self.readline()[:-1]))

    def _load_long_binput(self) -> None:  # LONG_BINPUT: a four-byte memo index (BINPUT's one byte is always small)
        self._memoize(struct.unpack("<I", self.read(4))[0])

    def _load_bytearray8(self) -> None:  # BYTEARRAY8: Python's unpickler allocates the length before reading
        (size,) = struct.unpack("<Q", self.read(8))
        check_length(size, self._budget.file_size)
        buffer = bytearray(size)
        self.readinto(buffer)
        self.append(buffer)

    def _memoize(self, index: int) -> None:
        check_memo_index(index, self._budget.file_size)
        self.memo[index] = self.stack[-1]

    dispatch[pickle.REDUCE[0]] = _load_reduce
    dispatch[pickle.NEWOBJ[0]] = _load_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = _load_newobj_ex
    dispatch[pickle.BUILD[0]] = _load_build
    dispatch[pickle.PUT[0]] = _load_put
    dispatch[pickle.LONG_BINPUT[0]] = _load_long_binput
    dispatch[pickle.BYTEARRAY8[0]] = _load_bytearray8


def _arguments(args: Any) -> tuple[Any, ...]:
    """The arguments of a call the pickle asks for; a real pickle always passes a tuple.

    Raises:
        CorruptPickleError: ``args`` is something else (unpacking a crafted ``range`` would allocate it).
    """
    if not isinstance(args, tuple):
        raise CorruptPickleError(
            f"call arguments are a {type(args).__name__}, not a tuple; the file is crafted or corrupt"
        )
    return args


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


def safe_load(file: BinaryIO, trusted_modules: Iterable[str] = (), *, allocation_budget: Optional[int] = None) -> Any:
    """Unpickles one object from ``file`` with :class:`SafeUnpickler` (``allocation_budget``: see there)."""
    return SafeUnpickler(file, trusted_modules, allocation_budget).load()


def safe_loads(payload: bytes, trusted_modules: Iterable[str] = (), *, allocation_budget: Optional[int] = None) -> Any:
    """Unpickles one object from ``payload`` with :class:`SafeUnpickler` (``allocation_budget``: see there)."""
    return safe_load(io.BytesIO(payload), trusted_modules, allocation_budget=allocation_budget)
