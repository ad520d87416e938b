"""Crafted pickles for adversarial tests: trajectory files that try to run code when loaded.

Every loader of trajectory data (datasets, viewers, BC, SACfD, ``load_trajectory``) must
refuse these files and run nothing. The payloads are written opcode by opcode, so they can
name objects the way an attacker would (``maze.env.utils.factory`` + ``inspect.attrgetter``,
a dotted name that pickle's own resolution follows through a foreign module), and
:func:`dumps` hides them anywhere inside otherwise valid data, in any pickle protocol::

    marker = tmp_path / "ran"
    record = StateTrajectoryRecord(...)
    record.step_records[3].step_event_log = Opcodes.payload("maze_dotted_chain", marker)
    path.write_bytes(dumps(record, protocol=4))
    # loading `path` must raise and `marker` must not exist

Each payload creates the file ``marker`` if anything runs it. The opcodes used (GLOBAL,
UNICODE, MARK, TUPLE, REDUCE) exist in every protocol from 0 to 5.
"""

from __future__ import annotations

import io
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

__all__ = ["MEMORY_ATTACKS", "PAYLOADS", "Opcodes", "dumps", "structured_dtype_array"]


@dataclass(frozen=True)
class Opcodes:
    """Raw pickle opcodes that leave exactly one object on the unpickler's stack.

    Attributes:
        code: The opcodes.
    """

    code: bytes

    @staticmethod
    def ref(module: str, name: str) -> Opcodes:
        """Pushes the object ``module``/``name`` resolves to (GLOBAL; ``name`` may be dotted)."""
        return Opcodes(b"c" + module.encode() + b"\n" + name.encode() + b"\n")

    @staticmethod
    def text(value: str) -> Opcodes:
        """Pushes a string (UNICODE)."""
        return Opcodes(b"V" + value.encode("raw_unicode_escape") + b"\n")

    def __call__(self, *args: Opcodes) -> Opcodes:
        """Pushes the result of calling this object with ``args`` (MARK, args, TUPLE, REDUCE)."""
        return Opcodes(self.code + pickle.MARK + b"".join(arg.code for arg in args) + pickle.TUPLE + pickle.REDUCE)

    @staticmethod
    def integer(value: int) -> Opcodes:
        """Pushes an integer (INT, any size)."""
        return Opcodes(b"I" + str(value).encode() + b"\n")

    @staticmethod
    def tuple_of(*items: Opcodes) -> Opcodes:
        """Pushes a tuple of ``items`` (MARK, items, TUPLE)."""
        return Opcodes(pickle.MARK + b"".join(item.code for item in items) + pickle.TUPLE)

    @staticmethod
    def payload(name: str, marker: Path) -> Opcodes:
        """The payload :data:`PAYLOADS` names, creating ``marker`` if it runs."""
        return PAYLOADS[name](marker)

    def pickle(self, protocol: int = pickle.DEFAULT_PROTOCOL) -> bytes:
        """A whole pickle holding only this payload."""
        return dumps(self, protocol)


def _touch_command(marker: Path) -> str:
    return f"touch '{marker}'"


def _os_system(marker: Path) -> Opcodes:
    """The naive payload: ``os.system('touch marker')``."""
    return Opcodes.ref("os", "system")(Opcodes.text(_touch_command(marker)))


def _builtins_eval(marker: Path) -> Opcodes:
    """``eval`` of Python source that creates the marker."""
    return Opcodes.ref("builtins", "eval")(Opcodes.text(f"open({str(marker)!r}, 'w').close()"))


def _maze_module_function(marker: Path) -> Opcodes:
    """``os.system`` named through a maze module that imports ``os`` (``maze.env.utils.files.os.system``)."""
    return Opcodes.ref("maze.env.utils.files", "os.system")(Opcodes.text(_touch_command(marker)))


def _maze_dotted_chain(marker: Path) -> Opcodes:
    """Gadgets reached through maze modules' imports, chained into ``os.system``.

    ``attrgetter`` through ``maze.env.utils.factory``'s import of ``inspect`` (a dotted name),
    ``itemgetter`` imported by name in ``maze.env.core.events``, then
    ``attrgetter('system')(itemgetter('os')(attrgetter('__init__.__globals__')(Factory)))``.
    """
    attrgetter = Opcodes.ref("maze.env.utils.factory", "inspect.attrgetter")
    itemgetter = Opcodes.ref("maze.env.core.events", "itemgetter")
    module_globals = attrgetter(Opcodes.text("__init__.__globals__"))(Opcodes.ref("maze.env.utils.factory", "Factory"))
    os_module = itemgetter(Opcodes.text("os"))(module_globals)
    system = attrgetter(Opcodes.text("system"))(os_module)
    return system(Opcodes.text(_touch_command(marker)))


def _class_attribute_chain(marker: Path) -> Opcodes:
    """A maze class's attributes followed to its module's globals (``Factory.__init__.__globals__``)."""
    module_globals = Opcodes.ref("maze.env.utils.factory", "Factory.__init__.__globals__")
    itemgetter = Opcodes.ref("maze.env.core.events", "itemgetter")
    os_module = itemgetter(Opcodes.text("os"))(module_globals)
    system = Opcodes.ref("maze.env.utils.factory", "inspect.attrgetter")(Opcodes.text("system"))(os_module)
    return system(Opcodes.text(_touch_command(marker)))


PAYLOADS: dict[str, Callable[[Path], Opcodes]] = {
    "os_system": _os_system,
    "builtins_eval": _builtins_eval,
    "maze_module_function": _maze_module_function,
    "maze_dotted_chain": _maze_dotted_chain,
    "class_attribute_chain": _class_attribute_chain,
}
"""Named payloads, each creating its ``marker`` file if it runs."""


class _StructuredDtype:
    """Pickles as a ``numpy.dtype`` whose one float64 field sits ``offset`` bytes into an 8-byte element."""

    def __init__(self, offset: int) -> None:
        self.offset = offset

    def __reduce__(self) -> tuple[Any, ...]:
        import numpy as np

        fields = {"a": (np.dtype("float64"), self.offset)}
        return np.dtype, ("V8", False, True), (3, "|", None, ("a",), fields, 8, 1, 16)


def structured_dtype_array(offset: int = 2**40) -> Any:
    """A pickle-able stand-in for a one-element array whose dtype reads ``offset`` bytes past its memory.

    Pickled, it is a real array reconstruction (numpy's ``_reconstruct`` and BUILD) with a
    structured dtype restored through BUILD; numpy would read and write at the offset.
    """
    import numpy as np

    class _Array:
        def __reduce__(self) -> tuple[Any, ...]:
            reconstruct = np.ndarray.__reduce__(np.zeros(1))[0]
            return reconstruct, (np.ndarray, (0,), b"b"), (1, (1,), _StructuredDtype(offset), False, bytes(8))

    return _Array()


def _memo_index(index: int) -> Opcodes:
    """``None`` memoized at ``index`` (LONG_BINPUT; C's unpickler grows its memo table to the index)."""
    return Opcodes(pickle.NONE + pickle.LONG_BINPUT + index.to_bytes(4, "little"))


def _memo_amplification(size: int = 100_000, copies: int = 20_000) -> Opcodes:
    """A list of ``copies`` tuples made from one ``size``-byte string in the memo (8 bytes of pickle per copy)."""
    remember_tuple = Opcodes.ref("builtins", "tuple").code + b"p1\n" + pickle.POP
    remember_bytes = pickle.BINBYTES + size.to_bytes(4, "little") + bytes(size) + b"p2\n" + pickle.POP
    copy = b"g1\ng2\n" + pickle.TUPLE1 + pickle.REDUCE
    return Opcodes(remember_tuple + remember_bytes + pickle.EMPTY_LIST + pickle.MARK + copy * copies + pickle.APPENDS)


MEMORY_ATTACKS: dict[str, Opcodes] = {
    "bytearray": Opcodes.ref("builtins", "bytearray")(Opcodes.integer(2_000_000_000)),
    "list_of_range": Opcodes.ref("builtins", "list")(
        Opcodes.ref("builtins", "range")(Opcodes.integer(0), Opcodes.integer(50_000_000))
    ),
    "memo_index": _memo_index(100_000_000),
    "space_constructor": Opcodes.ref("gymnasium.spaces", "Box")(
        Opcodes.integer(0), Opcodes.integer(1), Opcodes.tuple_of(Opcodes.integer(300_000_000))
    ),
    "array_reconstruct": Opcodes.ref("numpy._core.multiarray", "_reconstruct")(
        Opcodes.ref("numpy", "ndarray"),
        Opcodes.tuple_of(Opcodes.integer(2_000_000_000)),
        Opcodes(b"C'b'\n"[:0] + b"Vb\n"),
    ),
    "newobj_array": Opcodes.ref("copyreg", "__newobj__")(
        Opcodes.ref("numpy", "ndarray"), Opcodes.tuple_of(Opcodes.integer(2_000_000_000))
    ),
    "memo_amplification": _memo_amplification(),
    "bytearray8_length": Opcodes(pickle.BYTEARRAY8 + (2**40).to_bytes(8, "little") + b"xy"),
}
"""Tiny pickles that ask allowed names for gigabytes (or, ``memo_index``, a huge memo table)."""


class _SplicingPickler(pickle._Pickler):  # the pure-Python pickler: its save() can be extended
    """Pickles normally, but writes :class:`Opcodes` verbatim wherever they occur in the data."""

    def save(self, obj: Any, save_persistent_id: bool = True) -> None:
        if isinstance(obj, Opcodes):
            self.write(obj.code)
            return
        super().save(obj, save_persistent_id)


def dumps(obj: Any, protocol: int = pickle.DEFAULT_PROTOCOL) -> bytes:
    """Pickles ``obj`` with any :class:`Opcodes` inside it written as raw opcodes (a hidden payload)."""
    buffer = io.BytesIO()
    _SplicingPickler(buffer, protocol=protocol).dump(obj)
    return buffer.getvalue()
