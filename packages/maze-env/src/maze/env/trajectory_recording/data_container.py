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
import zipfile
from dataclasses import dataclass
from typing import Any, BinaryIO, Optional

import numpy as np
from maze.env.errors import MazeError
from maze.env.trajectory_recording.data_values import check_plain_dtype
from maze.env.trajectory_recording.pickle_guards import AllocationBudget
from numpy.lib import format as npy_format

__all__ = ["ContainerError", "DEFAULT_LIMITS", "ReadLimits", "TREE_MEMBER", "read_container", "write_container"]

TREE_MEMBER = "trajectory.json"
"""Name of the JSON member holding the record tree."""

_POOL_MEMBER = re.compile(r"arrays/(0|[1-9][0-9]{0,5})\.npy")
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

    Returns:
        The parsed JSON tree, the pools by index (flat, writable arrays of plain dtypes) and
        the allocation budget, charged with both (the tree's reader charges what it builds).

    Raises:
        ContainerError: The file breaks a limit or the layout; the message says which.
        TrajectoryAllocationError: The file needs more than ``limits.allocation_budget``, or memory
            ran out (a ``MemoryError``; the message names the bytes, the limit and how to raise it).
    """
    size = file.seek(0, os.SEEK_END)
    file.seek(0)
    if size > limits.max_file_bytes:
        raise ContainerError(f"the file has {size} bytes, more than the limit of {limits.max_file_bytes}")
    try:
        archive = zipfile.ZipFile(file)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        raise ContainerError(f"the file is truncated or corrupt: it is no readable zip archive ({error})") from None
    with archive:
        members = archive.infolist()
        if len(members) > limits.max_members:
            raise ContainerError(f"the file has {len(members)} members, more than the limit of {limits.max_members}")
        pools: dict[int, zipfile.ZipInfo] = {}
        tree_info = _check_members(members, pools, size)
        if tree_info is None:
            raise ContainerError(f"the file holds no {TREE_MEMBER}")
        if sorted(pools) != list(range(len(pools))):
            raise ContainerError("the array pools are not numbered 0, 1, 2, ...")
        if tree_info.file_size > limits.max_json_bytes:
            raise ContainerError(f"{TREE_MEMBER} has {tree_info.file_size} bytes, more than {limits.max_json_bytes}")
        budget = AllocationBudget.for_file(size, limits.allocation_budget)
        array_bytes = sum(info.file_size for info in pools.values())
        budget.charge(array_bytes + _JSON_EXPANSION * tree_info.file_size, "the arrays and the parsed JSON tree")
        try:
            text = archive.read(tree_info)
            arrays = [_read_pool(archive, pools[index], limits) for index in range(len(pools))]
        except (zipfile.BadZipFile, EOFError, OSError, zipfile.LargeZipFile) as error:
            raise ContainerError(f"truncated or corrupt member ({str(error)[:200]})") from None
        except MemoryError:
            raise budget.out_of_memory() from None
        try:
            tree = json.loads(text.decode("utf-8"))
        except RecursionError:
            raise ContainerError(f"{TREE_MEMBER} nests too deeply") from None
        except MemoryError:
            raise budget.out_of_memory() from None
        except (ValueError, UnicodeDecodeError) as error:
            raise ContainerError(f"{TREE_MEMBER} is no valid JSON ({str(error)[:200]})") from None
    return tree, arrays, budget


def _check_members(members: list[zipfile.ZipInfo], pools: dict[int, zipfile.ZipInfo], size: int) -> Any:
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


def _read_pool(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ReadLimits) -> np.ndarray:
    """Reads one ``.npy`` pool member: checked header, plain 1-D dtype, exact size, writable result."""
    name = info.filename
    with archive.open(info) as member:
        try:
            version = npy_format.read_magic(member)
            if version == (1, 0):
                header = npy_format.read_array_header_1_0(member, max_header_size=limits.max_npy_header_bytes)
            elif version == (2, 0):
                header = npy_format.read_array_header_2_0(member, max_header_size=limits.max_npy_header_bytes)
            else:
                raise ContainerError(f"{name}: unsupported .npy version {version}")
        except ContainerError:
            raise
        except (ValueError, SyntaxError, EOFError, OSError) as error:
            raise ContainerError(f"{name}: bad .npy header ({str(error)[:200]})") from None
        shape, fortran_order, dtype = header
        reason = check_plain_dtype(dtype)
        if reason is not None:
            raise ContainerError(f"{name}: {reason}; only plain dtypes are read")
        if len(shape) != 1 or fortran_order:
            raise ContainerError(f"{name}: an array pool must be flat, got shape {shape}")
        data_bytes = info.file_size - member.tell()
        if shape[0] * dtype.itemsize != data_bytes:
            raise ContainerError(
                f"{name}: the header claims {shape[0]} x {dtype.itemsize} bytes, the member holds {data_bytes}"
            )
        buffer = bytearray(data_bytes)
        if member.readinto(buffer) != data_bytes:
            raise ContainerError(f"{name}: truncated")
    return np.frombuffer(buffer, dtype=dtype)
