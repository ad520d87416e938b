"""What every fuzz target shares: the verdict on one input, seed files and byte mutations.

A loader of untrusted data passes an input if it returns, or raises an ``Exception`` other
than a ``MemoryError`` (a raw ``MemoryError``, or maze's "ran out of memory", means the
input got past the allocation budget; the session's address space is capped in
``fuzz_session.py`` so that such a bypass fails fast instead of exhausting the machine). A
segfault ends the session; a hang fails hypothesis's per-example deadline.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from maze.env.trajectory_recording.pickle_guards import TrajectoryAllocationError

__all__ = ["CORPUS", "assert_handled", "mutations"]

CORPUS = Path(__file__).resolve().parent / "corpus"
"""Crafted inputs kept as regression cases, one folder per target."""


def assert_handled(
    load: Callable[[bytes], Any], data: bytes, clean: tuple[type[Exception], ...] = (Exception,)
) -> None:
    """Runs ``load(data)``; fails on memory beyond the budget (see the module docs) or an error not in ``clean``.

    Args:
        load: The loader under test.
        data: The input.
        clean: The exception types the loader's contract allows (its "one clear error").
    """
    try:
        load(data)
    except TrajectoryAllocationError as error:  # the budget refused it: fine, unless memory ran out within it
        assert "ran out of memory" not in str(error), f"allocation beyond the budget: {error}"
    except clean as error:
        assert not isinstance(error, MemoryError) or "budget" in str(error), f"allocation beyond the budget: {error}"
        assert "ran out of memory" not in str(error), f"allocation beyond the budget: {error}"
    except MemoryError as error:
        raise AssertionError(f"allocation beyond the budget ({type(error).__name__}: {error})") from error
    except Exception as error:
        raise AssertionError(f"not the loader's clear error: {type(error).__name__}: {error}") from error


@st.composite
def mutations(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    """One of ``seeds`` with up to 8 bytes replaced, a run of bytes inserted or deleted, or cut short."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 8))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    position = draw(st.integers(0, len(data)))
    edit = draw(st.sampled_from(["insert", "delete", "truncate", "none"]))
    if edit == "insert":
        data[position:position] = draw(st.binary(min_size=1, max_size=16))
    elif edit == "delete":
        del data[position : position + draw(st.integers(1, 16))]
    elif edit == "truncate":
        del data[position:]
    return bytes(data)
