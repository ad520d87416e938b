"""Memory guards for loading untrusted pickles: plain dtypes only, an allocation budget, bounded memo indices.

An allow-list decides which classes a pickle may name; it cannot decide what an allowed
name does with the arguments the file gives it. Three kinds of harm come through allowed
names alone, and :class:`~maze.env.trajectory_recording.safe_unpickler.SafeUnpickler`
checks every call, object build and memo write against them with the functions here:

* **Memory corruption.** A ``numpy.dtype`` rebuilt from a file's state (pickle's BUILD)
  can declare fields far outside its element size; numpy then reads and writes beyond the
  array's memory. Only plain dtypes load: no fields, no sub-arrays, and a BUILD state must
  equal the state numpy itself writes for that dtype (its byte order may differ).
* **Allocation bombs.** ``bytearray(2_000_000_000)`` is 38 bytes of pickle;
  ``list(range(50_000_000))`` is 50. Every call a file makes is charged what it may
  allocate (an integer size given to ``bytes``/``bytearray``, ``8 * len(x)`` for each sized
  argument, the bytes of every array shape), against a budget proportional to the file's
  size (:class:`AllocationBudget`). Calling a gymnasium space class is refused outright:
  pickles rebuild spaces without calling them, while ``Box(0, 1, (n,))`` allocates ``n``
  floats.
* **Memo and length bombs.** A memo index is a number in the file; an index beyond the file's
  length cannot come from a real pickle and is refused (CPython's C unpickler grows its memo
  table to the index: 9 bytes asked for 1.6 GB). So is a length prefix longer than the file
  (Python's unpickler allocates a ``BYTEARRAY8``'s announced length before reading it).

The charges over-estimate on purpose (a ``tuple(b)`` of a 1 MB ``bytes`` is charged 8 MB):
a real episode's charges stay far below the default budget of 64 times the file's size
plus 64 MiB, and a crafted file cannot reuse one object from the memo to multiply its cost.
"""

from __future__ import annotations

import copyreg
import importlib
import math
import operator
import warnings
from collections.abc import Sized
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from maze.env.errors import MazeError

__all__ = [
    "DEFAULT_BUDGET_FACTOR",
    "DEFAULT_BUDGET_FLOOR",
    "AllocationBudget",
    "CorruptPickleError",
    "TrajectoryAllocationError",
    "array_bytes",
    "check_call",
    "check_dtype_state",
    "check_length",
    "check_memo_index",
    "check_plain_dtype",
]

DEFAULT_BUDGET_FACTOR = 64
"""The default budget allows 64 bytes of allocation per byte of the file ..."""

DEFAULT_BUDGET_FLOOR = 64 * 2**20
"""... plus 64 MiB."""

_POINTER_BYTES = 8
"""What one element of a container costs at least (a reference)."""

BUDGET_HINT = "load_trajectory(..., allocation_budget=<bytes>) (datasets and the BC/SACfD configs: allocation_budget)"
"""Where a user raises the budget, for messages."""


class CorruptPickleError(MazeError, ValueError):
    """A pickle asks for something no pickler writes (a structured dtype, a memo index beyond the file)."""


class TrajectoryAllocationError(MazeError, MemoryError):
    """Loading a pickle would allocate more than its budget (or ran out of memory)."""


@dataclass
class AllocationBudget:
    """What loading one pickle may allocate through the calls and builds it asks for.

    Attributes:
        limit: The budget in bytes.
        file_size: The pickle's size in bytes (for messages).
        spent: The bytes charged so far.
    """

    limit: int
    file_size: int
    spent: int = 0

    @classmethod
    def for_file(cls, file_size: int, limit: Optional[int] = None) -> AllocationBudget:
        """The budget of a pickle of ``file_size`` bytes: ``limit``, else the default (see the module docs)."""
        if limit is None:
            limit = DEFAULT_BUDGET_FACTOR * file_size + DEFAULT_BUDGET_FLOOR
        return cls(limit=int(limit), file_size=file_size)

    def charge(self, nbytes: int, what: str) -> None:
        """Books ``nbytes`` for ``what``.

        Raises:
            TrajectoryAllocationError: The total would exceed :attr:`limit`; the message names what
                asked, the bytes asked for, the limit and how to raise it.
        """
        if nbytes <= 0:
            return
        if self.spent + nbytes > self.limit:
            raise TrajectoryAllocationError(
                f"{what} asks to allocate {_mib(nbytes)} ({_mib(self.spent + nbytes)} in total), beyond this "
                f"{self.file_size}-byte file's allocation budget of {_mib(self.limit)}; a real trajectory file "
                f"needs far less, so it is crafted or corrupt. Only if you trust it, raise the budget: {BUDGET_HINT}"
            )
        self.spent += nbytes

    def out_of_memory(self) -> TrajectoryAllocationError:
        """The error for a ``MemoryError`` raised while loading within the budget."""
        return TrajectoryAllocationError(
            f"ran out of memory while loading a {self.file_size}-byte file ({_mib(self.spent)} charged so far, "
            f"budget {_mib(self.limit)}); lower the budget ({BUDGET_HINT}) or free memory"
        )


def _mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:,.1f} MiB"


def check_memo_index(index: int, file_size: int) -> None:
    """Refuses a memo index beyond the file (a real pickle memoizes at most one object per byte).

    Raises:
        CorruptPickleError: ``index`` is negative or not below ``file_size``.
    """
    if not 0 <= index < file_size:
        raise CorruptPickleError(f"memo index {index} is beyond the {file_size}-byte file; it is crafted or corrupt")


def check_length(size: int, file_size: int) -> None:
    """Refuses a length prefix longer than the whole file (the bytes it announces cannot follow).

    Raises:
        CorruptPickleError: ``size`` exceeds ``file_size``.
    """
    if size > file_size:
        raise CorruptPickleError(f"a length of {size} bytes in a {file_size}-byte file; it is crafted or corrupt")


def check_plain_dtype(dtype: Any, where: str) -> None:
    """Refuses structured and sub-array dtypes (their field offsets and shapes come from the file).

    Raises:
        CorruptPickleError: ``dtype`` has fields or a sub-array shape (``where`` names the use).
    """
    if not isinstance(dtype, np.dtype):
        return  # numpy parses strings and type codes itself; the dtype it builds is checked at build time
    if dtype.fields is not None or dtype.subdtype is not None:
        raise CorruptPickleError(
            f"{where}: structured or sub-array dtype {dtype!r} refused; trajectory files hold plain dtypes only "
            "(a crafted field offset would read and write outside the array's memory)"
        )


def check_dtype_state(dtype: np.dtype, state: Any) -> None:
    """Admits a dtype's BUILD state only if it equals numpy's own state for that dtype.

    The byte order may differ, and so may a datetime dtype's unit (its last entry), which numpy
    checks itself.

    Raises:
        CorruptPickleError: Any other entry differs (fields, offsets, item size, flags).
    """
    expected = dtype.__reduce__()[2]
    datetime_kind = dtype.kind in "mM"
    if not isinstance(state, tuple) or len(state) != len(expected):
        raise CorruptPickleError(f"dtype {dtype!r}: malformed state {state!r:.200}; the file is crafted or corrupt")
    for position, (given, wanted) in enumerate(zip(state, expected, strict=True)):
        if position == 1 and given in ("<", ">", "|", "="):
            continue
        if datetime_kind and position == len(expected) - 1:
            continue
        if type(given) is not type(wanted) or given != wanted:
            raise CorruptPickleError(
                f"dtype {dtype!r}: state entry {position} is {given!r:.200}, numpy writes {wanted!r}; only plain "
                "dtypes load (a crafted field offset or item size would read and write outside the array's memory)"
            )


def array_bytes(shape: Any, dtype: Any) -> int:
    """What an array of ``shape`` and ``dtype`` allocates (references count 8 bytes; 0 for no valid shape)."""
    try:
        dims = (operator.index(shape),) if not isinstance(shape, tuple) else tuple(operator.index(d) for d in shape)
        itemsize = np.dtype(dtype.decode("latin-1") if isinstance(dtype, bytes) else dtype).itemsize
    except (TypeError, ValueError):
        return 0  # numpy refuses it itself, allocating nothing
    if any(dim < 0 for dim in dims):
        return 0
    return math.prod(dims) * max(itemsize, 1)


def _numpy_functions(name: str) -> frozenset[int]:
    """The ids of numpy's pickle helper ``name`` under numpy 2's and numpy 1's module names."""
    found = set()
    for module_name in ("numpy._core", "numpy.core"):
        submodule = "numeric" if name == "_frombuffer" else "multiarray"
        with warnings.catch_warnings():  # numpy 2 warns on its numpy.core aliases
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                module = importlib.import_module(f"{module_name}.{submodule}")
            except ImportError:
                continue
            if hasattr(module, name):
                found.add(id(getattr(module, name)))
    return frozenset(found)


_ARRAY_RECONSTRUCT = _numpy_functions("_reconstruct")
"""``numpy._core.multiarray._reconstruct(ndarray, shape, dtype)``: builds an empty array of ``shape``."""

_ARRAY_FROMBUFFER = _numpy_functions("_frombuffer")
"""``numpy._core.numeric._frombuffer(buffer, dtype, shape, order)``: an array over bytes from the file."""

_BYTES_TYPES = (bytes, bytearray)
_RECONSTRUCTOR_BASES = (object, list, dict, set, frozenset, tuple, int, float, complex, str, bytes, bytearray)
"""The bases ``copyreg._reconstructor`` meets in real pickles (protocols 0 and 1 of builtin subclasses)."""


def check_call(func: Any, args: tuple[Any, ...], budget: AllocationBudget, initializes: bool = True) -> None:
    """Judges a call the pickle asks for (REDUCE, NEWOBJ) before it runs, and charges its allocation.

    Args:
        func: The callable (already admitted by the allow-list).
        args: Its positional arguments (keyword arguments of NEWOBJ_EX: pass their values too).
        budget: The file's budget, charged what the call may allocate.
        initializes: The call runs ``func`` itself (REDUCE, INST, OBJ), not only ``func.__new__`` (NEWOBJ).

    Raises:
        CorruptPickleError: A call no pickler writes (a space's constructor, a structured dtype,
            an array built through ``ndarray.__new__``, ``copyreg`` with a non-builtin base).
        TrajectoryAllocationError: The call's allocation exceeds the budget.
    """
    name = getattr(func, "__qualname__", type(func).__name__)
    if func is copyreg.__newobj__ and args:  # copyreg.__newobj__(cls, *args) is cls.__new__(cls, *args)
        check_call(args[0], args[1:], budget, initializes=False)
        return
    if func is copyreg.__newobj_ex__ and len(args) == 3:
        cls, positional, keywords = args
        values = (
            (*positional, *keywords.values()) if isinstance(positional, tuple) and isinstance(keywords, dict) else ()
        )
        check_call(cls, values, budget, initializes=False)
        return
    if initializes and isinstance(func, type) and issubclass(func, spaces.Space):
        raise CorruptPickleError(
            f"calling gymnasium space {name}: pickles rebuild spaces without calling them (a call allocates "
            "what the file asks for); the file is crafted or corrupt"
        )
    if isinstance(func, type) and issubclass(func, np.ndarray):
        raise CorruptPickleError("calling numpy.ndarray directly: pickles rebuild arrays through numpy's helpers")
    if id(func) in _ARRAY_RECONSTRUCT and len(args) >= 3:
        check_plain_dtype(args[2], name)
        budget.charge(array_bytes(args[1], args[2]), name)
        return
    if id(func) in _ARRAY_FROMBUFFER and len(args) >= 2:
        check_plain_dtype(args[1], name)
        budget.charge(len(args[0]) if isinstance(args[0], Sized) else 0, name)
        return
    if func is copyreg._reconstructor and len(args) >= 2 and args[1] not in _RECONSTRUCTOR_BASES:
        raise CorruptPickleError(
            f"copyreg._reconstructor with base {args[1]!r:.100}: only builtin bases occur in pickles"
        )
    if func in _BYTES_TYPES and args and isinstance(args[0], int):
        budget.charge(operator.index(args[0]), name)
    for argument in args:
        if isinstance(argument, np.dtype):
            check_plain_dtype(argument, name)
        elif isinstance(argument, Sized) and not isinstance(argument, np.ndarray):
            budget.charge(_POINTER_BYTES * len(argument), name)


def check_built(obj: Any, state: Any, budget: AllocationBudget) -> None:
    """Judges a BUILD (``__setstate__``) of ``obj`` with ``state`` from the file before it runs.

    Raises:
        CorruptPickleError: A dtype state numpy would not write, or an array state with a structured dtype.
        TrajectoryAllocationError: An array state whose shape exceeds the budget.
    """
    if isinstance(obj, np.dtype):
        check_dtype_state(obj, state)
    elif isinstance(obj, np.ndarray) and isinstance(state, tuple) and len(state) == 5:
        _version, shape, dtype, _fortran, _data = state
        check_plain_dtype(dtype, "array state")
        budget.charge(array_bytes(shape, dtype), "numpy array state")


def check_result(obj: Any) -> None:
    """Judges an object a call built (a dtype numpy parsed from a string such as ``'f4,f4'``)."""
    if isinstance(obj, np.dtype):
        check_plain_dtype(obj, "dtype")
    elif isinstance(obj, np.ndarray):
        check_plain_dtype(obj.dtype, "array")
