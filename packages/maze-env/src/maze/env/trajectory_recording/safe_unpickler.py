"""Loading trajectory files without running code from them: an allow-listed unpickler.

Trajectory files are pickles (they hold MazeStates, MazeActions and renderers of any env).
An ordinary unpickler imports and calls whatever the file names, so a crafted file runs
code. :class:`SafeUnpickler` resolves only

* classes of maze's own packages (``maze.*``), the event methods event records refer to
  (functions whose body is only a docstring, so calling them does nothing), and anything of
  the modules the user trusts explicitly (their env's state and action classes:
  ``trusted_modules``),
* numpy arrays, dtypes and scalars, gymnasium spaces, and plain containers and values
  (dict, list, tuple, set, OrderedDict, defaultdict, deque, UUID, datetime, ...),
* the standard reconstruction helpers of pickle (``copyreg``),

and refuses everything else (functions, code objects, ``os``, ``subprocess``, ``eval``, the
by-value classes and closures of cloudpickle, ...) before it is imported. The records
maze writes need nothing else; a refusal names the class and how to trust its module.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Iterable
from typing import Any, BinaryIO

import numpy as np
from maze.env.errors import MazeError

__all__ = ["SafeUnpickler", "UnsafeTrajectoryError", "safe_load", "safe_loads"]


class UnsafeTrajectoryError(MazeError, pickle.UnpicklingError):
    """A pickle names a class or function outside the allow-list."""


_ALLOWED: dict[str, frozenset[str]] = {
    "builtins": frozenset(
        {"dict", "list", "tuple", "set", "frozenset", "int", "float", "complex", "bool", "str", "bytes"}
        | {"bytearray", "slice", "range", "object", "NoneType", "Ellipsis", "NotImplemented"}
    ),
    "copyreg": frozenset({"_reconstructor", "__newobj__", "__newobj_ex__"}),
    "collections": frozenset({"OrderedDict", "defaultdict", "deque", "Counter"}),
    "uuid": frozenset({"UUID", "SafeUUID"}),
    "datetime": frozenset({"datetime", "date", "time", "timedelta", "timezone"}),
    "numpy.core.multiarray": frozenset({"_reconstruct", "scalar"}),
    "numpy._core.multiarray": frozenset({"_reconstruct", "scalar"}),
    "numpy.core.numeric": frozenset({"_frombuffer"}),
    "numpy._core.numeric": frozenset({"_frombuffer"}),
}
"""Module -> names that unpickling may resolve (besides maze, numpy types and gymnasium spaces)."""

_TRUSTED_PACKAGES = ("maze",)


def _within(module: str, packages: Iterable[str]) -> bool:
    return any(module == package or module.startswith(f"{package}.") for package in packages)


class SafeUnpickler(pickle.Unpickler):
    """An unpickler that resolves only allow-listed classes (see the module docs).

    Args:
        file: The binary file to read.
        trusted_modules: Further modules (or packages) whose classes may be loaded.
    """

    def __init__(self, file: BinaryIO, trusted_modules: Iterable[str] = ()) -> None:
        super().__init__(file)
        self.trusted_modules = tuple(trusted_modules)

    def find_class(self, module: str, name: str) -> Any:
        """Resolves ``module.name`` if allowed.

        Raises:
            UnsafeTrajectoryError: Naming the class and how to trust it; nothing is imported.
        """
        if _within(module, _TRUSTED_PACKAGES) or _within(module, self.trusted_modules):
            target = super().find_class(module, name)
            if isinstance(target, type) or _is_event_stub(target) or _within(module, self.trusted_modules):
                return target
        elif name in _ALLOWED.get(module, ()):
            return super().find_class(module, name)
        elif _is_numpy_type(module, name) or (module.startswith("gymnasium.spaces") and "." not in name):
            target = super().find_class(module, name)
            if isinstance(target, type):
                return target
        if _within(module, _TRUSTED_PACKAGES):
            fix = "only if you trust the file, load it with safe=False"
        else:
            fix = f"if you trust the file, trust the module: trusted_modules=['{module.split('.')[0]}']"
        raise UnsafeTrajectoryError(
            f"refusing to load {module}.{name}: it is not a maze, numpy, gymnasium-spaces or plain data class (or "
            f"an event method), and loading it could run code; {fix}"
        )


def _stub_method(self: Any) -> None:
    """An event method: a docstring and nothing else."""


def _is_event_stub(target: Any) -> bool:
    """True for functions that do nothing when called, such as the event methods events refer to."""
    code = getattr(target, "__code__", None)
    return code is not None and code.co_code == _stub_method.__code__.co_code and not code.co_names


def _is_numpy_type(module: str, name: str) -> bool:
    """Numpy's array, dtype and scalar classes (e.g. ``numpy.float32``, ``numpy.dtypes.Float32DType``)."""
    if module == "numpy.dtypes":
        return True
    if module != "numpy":
        return False
    value = getattr(np, name, None)
    return isinstance(value, type) and issubclass(value, (np.generic, np.ndarray, np.dtype))


def safe_load(file: BinaryIO, trusted_modules: Iterable[str] = ()) -> Any:
    """Unpickles one object from ``file`` with :class:`SafeUnpickler`."""
    return SafeUnpickler(file, trusted_modules).load()


def safe_loads(payload: bytes, trusted_modules: Iterable[str] = ()) -> Any:
    """Unpickles one object from ``payload`` with :class:`SafeUnpickler`."""
    return safe_load(io.BytesIO(payload), trusted_modules)
