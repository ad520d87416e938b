"""The container of the data-only trajectory format: an uncompressed zip of ``.npy`` arrays and one JSON tree.

Layout of a file (a zip archive, every member *stored*, i.e. uncompressed)::

    trajectory.json    the record tree (UTF-8 JSON), with "format" and "version" keys
    arrays/0.npy       array pool 0: a flat array of one plain dtype (numpy's .npy format)
    arrays/1.npy       ...

The file opens with ``numpy.load`` (the pools) and any zip tool. :func:`read_container` reads
it within :class:`ReadLimits`: the file size, the member count, member names, no compressed
members, the ``.npy`` header size, a plain dtype, one dimension, and a data size that equals
the member's size exactly, the JSON size; everything else (the tree's nesting, its
references into the pools) is checked by the reader of the tree. Nothing is allocated
beyond what the file's bytes account for.
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any, BinaryIO, NamedTuple, Optional

import numpy as np
from maze.env.errors import MazeError
from maze.env.trajectory_recording.data_values import check_plain_dtype
from maze.env.trajectory_recording.pickle_guards import AllocationBudget
from numpy.lib import format as npy_format

__all__ = ["ContainerError", "DEFAULT_LIMITS", "ReadLimits", "TREE_MEMBER", "read_container", "write_container"]

TREE_MEMBER = "trajectory.json"
"""Name of the JSON member holding the record tree."""

_POOL_MEMBER = re.compile(r"arrays/(0|[1-9][0-9]{0,5})\.npy")
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")
"""A zip local file header: signature, version, flags, method, time, date, CRC-32, sizes, name and extra lengths."""
_LOCAL_SIGNATURE = b"PK\x03\x04"
_END_RECORD = struct.Struct("<4s4H2LH")
"""The zip's end of central directory record (without zip64 or a comment)."""
_END_SIGNATURE = b"PK\x05\x06"
_CENTRAL_HEADER = struct.Struct("<4s6H3L5H2L")
"""A zip central directory header: signature, versions, flags, method, time, date, CRC-32, sizes, lengths, ..., offset."""
_CENTRAL_SIGNATURE = b"PK\x01\x02"
_FLAT_NPY_HEADER = re.compile(
    rb"\x93NUMPY\x01\x00(..)\{'descr': '([<>|=]?[a-zA-Z][0-9]{0,5})', 'fortran_order': False, 'shape': \(([0-9]{1,19}),\), \} *\n",
    re.DOTALL,
)
_DTYPES: dict[bytes, np.dtype] = {}
"""The dtypes of the ``descr`` strings seen so far (numpy's dtype parser is slow for a per-file step)."""
_JSON_EXPANSION = 40
"""Bytes of Python objects one byte of JSON may become at most (for the allocation budget)."""


class ContainerError(MazeError, ValueError):
    """A data-only trajectory file breaks the container's layout or limits."""


@dataclass(frozen=True)
class ReadLimits:
    """Bounds for reading one data-only trajectory file.

    Attributes:
        max_file_bytes: Largest file accepted.
        max_members: Most zip members accepted (one JSON tree plus one pool per dtype).
        max_json_bytes: Largest JSON tree accepted.
        max_npy_header_bytes: Largest ``.npy`` header accepted (numpy's ``max_header_size``).
        allocation_budget: Bytes the loaded arrays plus the parsed JSON (estimated at
            ``40 x`` its size) may take; None: the legacy pickle loader's default (64 times
            the file's size plus 64 MiB), which every file within the limits above meets.
    """

    max_file_bytes: int = 4 << 30
    max_members: int = 64
    max_json_bytes: int = 64 << 20
    max_npy_header_bytes: int = 4096
    allocation_budget: Optional[int] = None


DEFAULT_LIMITS = ReadLimits()
"""The limits :func:`read_container` reads within unless told otherwise."""


def write_container(file: BinaryIO, tree: dict[str, Any], pools: list[np.ndarray]) -> None:
    """Writes the JSON tree and the array pools into ``file`` (see the module doc)."""
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(TREE_MEMBER, json.dumps(tree, separators=(",", ":")).encode("utf-8"))
        for index, pool in enumerate(pools):
            buffer = io.BytesIO()
            npy_format.write_array(buffer, pool, version=(1, 0), allow_pickle=False)
            archive.writestr(f"arrays/{index}.npy", buffer.getbuffer())


def read_container(
    file: BinaryIO, limits: ReadLimits = DEFAULT_LIMITS
) -> tuple[Any, list[np.ndarray], AllocationBudget]:
    """Reads a container's JSON tree and array pools within ``limits``.

    The zip directory is read and checked first; then the file is read once, and each member
    is sliced out of it at the data offset its local header gives (checked against the
    directory: signature, name, stored, within the file, CRC-32).

    Returns:
        The parsed JSON tree, the pools by index (flat, writable arrays of plain dtypes) and
        the allocation budget, charged with both (the tree's reader charges what it builds).

    Raises:
        ContainerError: The file breaks a limit or the layout; the message says which.
        TrajectoryAllocationError: The file needs more than ``limits.allocation_budget``, or memory
            ran out (a ``MemoryError``; the message names the bytes, the limit and how to raise it).
    """
    size = file.seek(0, os.SEEK_END)
    if size > limits.max_file_bytes:
        raise ContainerError(f"the file has {size} bytes, more than the limit of {limits.max_file_bytes}")
    budget = AllocationBudget.for_file(size, limits.allocation_budget)
    budget.charge(size, "the file's bytes")
    file.seek(0)
    data = memoryview(file.read(size))
    if len(data) != size:
        raise ContainerError("the file is truncated: it changed while it was read")
    members = _plain_directory(data, limits.max_members)
    if members is None:
        members = _zipfile_directory(data)
    if len(members) > limits.max_members:
        raise ContainerError(f"the file has {len(members)} members, more than the limit of {limits.max_members}")
    pools: dict[int, _Entry] = {}
    tree_info = _check_members(members, pools, size)
    if tree_info is None:
        raise ContainerError(f"the file holds no {TREE_MEMBER}")
    if sorted(pools) != list(range(len(pools))):
        raise ContainerError("the array pools are not numbered 0, 1, 2, ...")
    if tree_info.file_size > limits.max_json_bytes:
        raise ContainerError(f"{TREE_MEMBER} has {tree_info.file_size} bytes, more than {limits.max_json_bytes}")
    array_bytes = sum(info.file_size for info in pools.values())
    budget.charge(array_bytes + _JSON_EXPANSION * tree_info.file_size, "the arrays and the parsed JSON tree")
    try:
        text = str(_member(data, tree_info), "utf-8")
        arrays = [_read_pool(_member(data, pools[index]), pools[index].filename, limits) for index in range(len(pools))]
        tree = json.loads(text)
    except RecursionError:
        raise ContainerError(f"{TREE_MEMBER} nests too deeply") from None
    except MemoryError:
        raise budget.out_of_memory() from None
    except (ValueError, UnicodeDecodeError) as error:
        if isinstance(error, ContainerError):
            raise
        raise ContainerError(f"{TREE_MEMBER} is no valid JSON ({str(error)[:200]})") from None
    return tree, arrays, budget


class _Entry(NamedTuple):
    """A member as the zip directory describes it (the attributes of ``zipfile.ZipInfo`` used here)."""

    filename: str
    compress_type: int
    flag_bits: int
    CRC: int
    compress_size: int
    file_size: int
    header_offset: int


def _plain_directory(data: memoryview, max_members: int) -> Optional[list[_Entry]]:
    """The members of a plain zip (no comment, no zip64, one disk, nothing before or after); None for any other.

    This is what :func:`write_container` writes; everything else is read by :mod:`zipfile`.
    """
    size = len(data)
    if size < _END_RECORD.size:
        return None
    signature, disk, start_disk, disk_entries, entries, cd_size, cd_offset, comment = _END_RECORD.unpack_from(
        data, size - _END_RECORD.size
    )
    if (
        signature != _END_SIGNATURE
        or (disk, start_disk, comment) != (0, 0, 0)
        or disk_entries != entries
        or entries > max_members
        or cd_offset + cd_size != size - _END_RECORD.size
    ):
        return None
    members, position = [], cd_offset
    for _ in range(entries):
        if position + _CENTRAL_HEADER.size > size:
            return None
        fields = _CENTRAL_HEADER.unpack_from(data, position)
        if fields[0] != _CENTRAL_SIGNATURE or fields[16] == 0xFFFFFFFF or 0xFFFFFFFF in fields[8:10]:
            return None
        name_end = position + _CENTRAL_HEADER.size + fields[10]
        name = str(data[position + _CENTRAL_HEADER.size : name_end], "utf-8" if fields[3] & 0x800 else "cp437")
        members.append(_Entry(name, fields[4], fields[3], fields[7], fields[8], fields[9], fields[16]))
        position = name_end + fields[11] + fields[12]
    return members if position == cd_offset + cd_size else None


def _zipfile_directory(data: memoryview) -> list[_Entry]:
    """The members as :mod:`zipfile` reads the directory (any zip it reads; its errors as ``ContainerError``)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise ContainerError(f"the file is truncated or corrupt: it is no readable zip archive ({error})") from None
    return [
        _Entry(i.filename, i.compress_type, i.flag_bits, i.CRC, i.compress_size, i.file_size, i.header_offset)
        for i in infos
    ]


def _check_members(members: list[_Entry], pools: dict[int, _Entry], size: int) -> Any:
    """Checks names, compression and sizes; fills ``pools``; returns the tree member's info."""
    tree_info = None
    total = 0
    for info in members:
        if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
            raise ContainerError(f"member {info.filename[:100]!r} is compressed; only stored members are read")
        if info.flag_bits & 0x1:
            raise ContainerError(f"member {info.filename[:100]!r} is encrypted")
        total += info.file_size
        if total > size:
            raise ContainerError("the members claim more bytes than the file has")
        match = _POOL_MEMBER.fullmatch(info.filename)
        if info.filename == TREE_MEMBER and tree_info is None:
            tree_info = info
        elif match is not None and int(match.group(1)) not in pools:
            pools[int(match.group(1))] = info
        else:
            raise ContainerError(f"unexpected or repeated member {info.filename[:100]!r}")
    return tree_info


def _member(data: memoryview, info: _Entry) -> memoryview:
    """A stored member's bytes, found through its local header (checked against the zip directory)."""
    offset, name = info.header_offset, info.filename
    if offset + _LOCAL_HEADER.size > len(data):
        raise ContainerError(f"truncated or corrupt member {name!r} (its header lies beyond the file)")
    signature, _, _, method, *_, name_length, extra_length = _LOCAL_HEADER.unpack_from(data, offset)
    start = offset + _LOCAL_HEADER.size
    end = start + name_length + extra_length + info.file_size
    if signature != _LOCAL_SIGNATURE or method != zipfile.ZIP_STORED or end > len(data):
        raise ContainerError(f"truncated or corrupt member {name!r} (bad local header)")
    if data[start : start + name_length] != name.encode("ascii"):
        raise ContainerError(f"truncated or corrupt member {name!r} (its local header names another member)")
    member = data[end - info.file_size : end]
    if zlib.crc32(member) != info.CRC:
        raise ContainerError(f"truncated or corrupt member {name!r} (CRC-32 mismatch)")
    return member


def _read_pool(member: memoryview, name: str, limits: ReadLimits) -> np.ndarray:
    """Reads one ``.npy`` pool member: checked header, plain 1-D dtype, exact size, writable result."""
    header = _fast_npy_header(member, limits)
    if header is None:
        header = _numpy_npy_header(member, name, limits)
    shape, fortran_order, dtype, data_start = header
    reason = check_plain_dtype(dtype)
    if reason is not None:
        raise ContainerError(f"{name}: {reason}; only plain dtypes are read")
    if len(shape) != 1 or fortran_order:
        raise ContainerError(f"{name}: an array pool must be flat, got shape {shape}")
    data_bytes = len(member) - data_start
    if shape[0] * dtype.itemsize != data_bytes:
        raise ContainerError(
            f"{name}: the header claims {shape[0]} x {dtype.itemsize} bytes, the member holds {data_bytes}"
        )
    return np.frombuffer(bytearray(member[data_start:]), dtype=dtype)


def _fast_npy_header(member: memoryview, limits: ReadLimits) -> Optional[tuple[tuple, bool, np.dtype, int]]:
    """The version 1.0 header numpy writes for a flat array (shape, fortran order, dtype, data offset); else None."""
    match = _FLAT_NPY_HEADER.match(member, 0, 10 + limits.max_npy_header_bytes)
    if match is None or int.from_bytes(match.group(1), "little") != match.end() - 10:
        return None
    dtype = _DTYPES.get(match.group(2))
    if dtype is None:
        try:
            dtype = np.dtype(match.group(2).decode("ascii"))
        except (TypeError, ValueError):
            return None
        if len(_DTYPES) < 256:
            _DTYPES[match.group(2)] = dtype
    return (int(match.group(3)),), False, dtype, match.end()


def _numpy_npy_header(member: memoryview, name: str, limits: ReadLimits) -> tuple[tuple, bool, np.dtype, int]:
    """Any other ``.npy`` header, parsed by numpy (within ``limits.max_npy_header_bytes``)."""
    stream = io.BytesIO(member)
    try:
        version = npy_format.read_magic(stream)
        if version == (1, 0):
            header = npy_format.read_array_header_1_0(stream, max_header_size=limits.max_npy_header_bytes)
        elif version == (2, 0):
            header = npy_format.read_array_header_2_0(stream, max_header_size=limits.max_npy_header_bytes)
        else:
            raise ContainerError(f"{name}: unsupported .npy version {version}")
    except ContainerError:
        raise
    except (ValueError, SyntaxError, EOFError, OSError) as error:
        raise ContainerError(f"{name}: bad .npy header ({str(error)[:200]})") from None
    return (*header, stream.tell())
