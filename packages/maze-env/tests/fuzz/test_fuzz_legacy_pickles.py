"""Fuzzing the legacy (pickle) trajectory loader: mutated real episodes and opcode soups of allowed names."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from fuzzing import CORPUS, assert_handled, mutations
from hypothesis import given
from hypothesis import strategies as st
from maze.env.testing.crafted_pickles import MEMORY_ATTACKS
from maze.env.trajectory_recording.safe_unpickler import safe_loads

LEGACY_FILES = sorted((Path(__file__).resolve().parents[1] / "recording" / "legacy_trajectories").glob("*.pkl"))
SEEDS = [path.read_bytes() for path in LEGACY_FILES] + [attack.pickle(protocol=4) for attack in MEMORY_ATTACKS.values()]

ALLOWED_NAMES = [
    *(("builtins", name) for name in ("bytearray", "list", "tuple", "set", "frozenset", "dict", "range", "bytes")),
    *(("builtins", name) for name in ("str", "int", "slice", "complex", "object")),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy._core.numeric", "_frombuffer"),
    *(("copyreg", name) for name in ("_reconstructor", "__newobj__", "__newobj_ex__")),
    *(("collections", name) for name in ("OrderedDict", "deque", "Counter", "defaultdict")),
    *(("gymnasium.spaces", name) for name in ("Box", "Discrete", "Dict", "MultiDiscrete")),
    ("maze.env.trajectory_recording.records", "StateRecord"),
    ("maze.env.core.events", "EventRecord"),
]
"""Names the allow-list admits: the fuzzer hands them arguments of its choosing."""

TEXTS = ["f4", "V8", "O", "U5", "M8[s]", "f4,f4", "(3,)f8", "<", ">", "a", "b", "C", ""]
"""Short strings, many of them dtype specifications."""

_INTEGERS = st.one_of(st.integers(-3, 16), st.integers(-(2**63), 2**63), st.sampled_from([2**31 - 1, 2**32, 10**9]))


def _opcode() -> st.SearchStrategy[bytes]:
    """One opcode with its argument."""
    name = st.sampled_from(ALLOWED_NAMES).map(lambda pair: b"c" + pair[0].encode() + b"\n" + pair[1].encode() + b"\n")
    integer = _INTEGERS.map(lambda value: b"I" + str(value).encode() + b"\n")
    text = st.sampled_from(TEXTS).map(lambda value: b"V" + value.encode() + b"\n")
    raw = st.binary(max_size=24).map(lambda value: pickle.SHORT_BINBYTES + bytes([len(value)]) + value)
    lying_length = st.integers(0, 2**40).map(lambda size: pickle.BINBYTES8 + size.to_bytes(8, "little") + b"xy")
    memo = st.integers(0, 40).flatmap(
        lambda index: st.sampled_from([b"p%d\n" % index, b"g%d\n" % index, pickle.BINGET + bytes([index])])
    )
    plain = st.sampled_from(
        [pickle.MARK, pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3, pickle.EMPTY_TUPLE]
        + [pickle.EMPTY_LIST, pickle.EMPTY_DICT, pickle.APPENDS, pickle.SETITEMS, pickle.APPEND, pickle.SETITEM]
        + [pickle.REDUCE, pickle.BUILD, pickle.NEWOBJ, pickle.NEWOBJ_EX, pickle.STACK_GLOBAL, pickle.MEMOIZE]
        + [pickle.NONE, pickle.NEWTRUE, pickle.POP, pickle.DUP, pickle.EMPTY_SET, pickle.ADDITEMS]
    )
    return st.one_of(name, integer, text, raw, lying_length, memo, plain)


opcode_soups = st.lists(_opcode(), max_size=40).map(lambda ops: pickle.PROTO + b"\x04" + b"".join(ops) + pickle.STOP)


@given(opcode_soups)
def test_opcode_soups_of_allowed_names_are_handled(data: bytes) -> None:
    assert_handled(safe_loads, data)


@given(mutations(SEEDS))
def test_mutated_episodes_and_attacks_are_handled(data: bytes) -> None:
    assert_handled(safe_loads, data)


def test_the_seeds_are_real_episodes() -> None:
    """The mutations start from valid files (guards against a fuzz target that only ever sees garbage)."""
    assert len(LEGACY_FILES) >= 3
    for path in LEGACY_FILES:
        assert len(safe_loads(path.read_bytes())) > 0


def _corpus_files() -> list[Path]:
    return sorted((CORPUS / "legacy_pickles").glob("*.pkl"))


@pytest.mark.parametrize("path", _corpus_files(), ids=lambda path: path.stem)
def test_the_crafted_corpus_is_refused(path: Path) -> None:
    """Crafted files kept as regression cases (attacks and inputs the fuzzer found): each is refused cleanly."""
    with pytest.raises(Exception) as error:
        safe_loads(path.read_bytes())
    assert not isinstance(error.value, MemoryError) or "budget" in str(error.value)


def test_the_corpus_holds_every_memory_attack() -> None:
    """``corpus/legacy_pickles`` is written by this folder's ``write_corpus.py``: it must be current."""
    names = {path.stem for path in _corpus_files()}
    assert set(MEMORY_ATTACKS) | {"structured_dtype"} <= names
