"""Legacy trajectory pickles cannot corrupt memory, exhaust it or grow the memo through allowed names."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from maze.env.testing.crafted_pickles import Opcodes, dumps, structured_dtype_array
from maze.env.trajectory_recording.pickle_guards import TrajectoryAllocationError
from maze.env.trajectory_recording.safe_unpickler import UnsafeTrajectoryError, safe_loads

EXPECTED_REFUSALS = {
    "bytearray": ("TrajectoryAllocationError", "bytearray asks to allocate 1,907.3 MiB"),
    "list_of_range": ("TrajectoryAllocationError", "list asks to allocate 381.5 MiB"),
    "memo_index": ("UnsafeTrajectoryError", "memo index 100000000 is beyond the 18-byte file"),
    "space_constructor": ("UnsafeTrajectoryError", "calling gymnasium space Box"),
    "array_reconstruct": ("TrajectoryAllocationError", "_reconstruct asks to allocate 1,907.3 MiB"),
    "newobj_array": ("UnsafeTrajectoryError", "calling numpy.ndarray directly"),
    "memo_amplification": ("TrajectoryAllocationError", "tuple asks to allocate"),
    "bytearray8_length": ("UnsafeTrajectoryError", "a length of 1099511627776 bytes in a 23-byte file"),
}

_UNDER_A_MEMORY_LIMIT = textwrap.dedent(
    """
    import json, resource, sys, time
    from maze.env.testing.crafted_pickles import MEMORY_ATTACKS
    from maze.env.trajectory_recording.safe_unpickler import safe_loads

    def address_space():
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))

    # every attack asks for more than this; an unguarded load dies with a MemoryError
    resource.setrlimit(resource.RLIMIT_AS, (address_space() + 300 * 2**20, resource.RLIM_INFINITY))
    outcomes = {}
    for name, attack in MEMORY_ATTACKS.items():
        start = time.perf_counter()
        try:
            safe_loads(attack.pickle(protocol=4))
            outcomes[name] = ["loaded", "", 0.0]
        except BaseException as error:
            outcomes[name] = [type(error).__name__, str(error), time.perf_counter() - start]
    try:  # within a budget raised by hand, memory runs out: reported as such, with the budget
        safe_loads(MEMORY_ATTACKS["bytearray"].pickle(protocol=4), allocation_budget=2**40)
    except BaseException as error:
        outcomes["out_of_memory"] = [type(error).__name__, str(error), 0.0]
    json.dump(outcomes, sys.stdout)
    """
)


@pytest.fixture(scope="module")
def outcomes_under_a_memory_limit() -> dict[str, list]:
    """Each memory attack loaded in one subprocess whose address space ends 300 MiB past its start."""
    result = subprocess.run(
        [sys.executable, "-c", _UNDER_A_MEMORY_LIMIT], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.mark.parametrize("attack", sorted(EXPECTED_REFUSALS))
def test_a_tiny_file_asking_for_gigabytes_is_refused_before_it_allocates(
    outcomes_under_a_memory_limit: dict[str, list], attack: str
) -> None:
    error_type, message, seconds = outcomes_under_a_memory_limit[attack]
    expected_type, expected_message = EXPECTED_REFUSALS[attack]
    assert error_type == expected_type, message
    assert expected_message in message
    assert seconds < 5.0
    if error_type == "TrajectoryAllocationError":
        assert "allocation budget of" in message and "allocation_budget=" in message


def test_running_out_of_memory_within_a_raised_budget_says_so(outcomes_under_a_memory_limit: dict[str, list]) -> None:
    error_type, message, _ = outcomes_under_a_memory_limit["out_of_memory"]
    assert error_type == "TrajectoryAllocationError"
    assert "ran out of memory while loading a 47-byte file" in message and "budget 1,048,576.0 MiB" in message


@pytest.mark.parametrize("offset", [2**40, 16], ids=["far-outside", "neighbouring-memory"])
def test_a_structured_dtype_with_a_field_outside_its_element_is_refused(offset: int) -> None:
    """numpy would read (and write) ``offset`` bytes past the array: a segfault, or another object's memory."""
    payload = dumps({"maze_state": structured_dtype_array(offset)}, protocol=4)
    with pytest.raises(UnsafeTrajectoryError, match=r"dtype\('V8'\): state entry 3 is \('a',\), numpy writes None"):
        safe_loads(payload)


@pytest.mark.parametrize("spec", ["f4,f4", "(3,)f8", "V8,i4"])
def test_structured_and_sub_array_dtypes_parsed_from_a_string_are_refused(spec: str) -> None:
    payload = Opcodes.ref("numpy", "dtype")(Opcodes.text(spec)).pickle(protocol=2)
    with pytest.raises(UnsafeTrajectoryError, match="structured or sub-array dtype"):
        safe_loads(payload)


def test_an_array_state_with_a_structured_dtype_is_refused() -> None:
    array = np.zeros(2, dtype=[("a", "f8"), ("b", "i4")])
    with pytest.raises(UnsafeTrajectoryError, match="state entry 3 is \\('a', 'b'\\), numpy writes None"):
        safe_loads(pickle.dumps(array, protocol=4))


def test_a_memo_index_beyond_the_file_is_refused_in_text_form_too() -> None:
    with pytest.raises(UnsafeTrajectoryError, match="memo index 99999999 is beyond"):
        safe_loads(pickle.NONE + b"p99999999\n" + pickle.STOP)


def test_call_arguments_that_are_not_a_tuple_are_refused() -> None:
    """Unpacking ``func(*range(10**9))`` would build the range's items before the call."""
    arguments = Opcodes.ref("builtins", "range")(Opcodes.integer(0), Opcodes.integer(10**9))
    payload = Opcodes(Opcodes.ref("builtins", "list").code + arguments.code + pickle.REDUCE).pickle()
    with pytest.raises(UnsafeTrajectoryError, match="call arguments are a range, not a tuple"):
        safe_loads(payload)


PLAIN_DATA = [
    np.arange(6, dtype=np.float32).reshape(2, 3),
    np.arange(4, dtype=">i2"),
    np.array(["a", "bcd"]),
    np.array([b"x", b"yz"]),
    np.zeros(3, dtype="V4"),
    np.array(["2024-01-02T03:04"], dtype="datetime64[m]"),
    np.array([1, 2], dtype="timedelta64[ms]"),
    np.array([{"nested": [1, 2]}, None], dtype=object),
    np.array(3.5),
    np.asfortranarray(np.ones((3, 2), dtype=np.complex64)),
    np.zeros((0, 4), dtype=bool),
    np.float32(1.5),
    np.datetime64("2024-01-01", "D"),
    np.dtype("<U7"),
    spaces.Dict({"a": spaces.Box(-1, 1, (3,)), "b": spaces.Discrete(4), "c": spaces.MultiBinary(2)}),
    spaces.MultiDiscrete([3, 4]),
    bytearray(b"plain"),
    {"set": {1, 2}, "frozen": frozenset("ab"), "range": range(3), "complex": 1j, "slice": slice(1, 5)},
]


@pytest.mark.parametrize("protocol", range(3, pickle.HIGHEST_PROTOCOL + 1))
def test_plain_arrays_dtypes_scalars_and_spaces_still_load(protocol: int) -> None:
    """Protocols 3-5 (cloudpickle writes 5); 0-2 store bytes through ``_codecs.encode``, which was never allowed."""
    loaded = safe_loads(pickle.dumps(PLAIN_DATA, protocol=protocol))
    for original, restored in zip(PLAIN_DATA, loaded, strict=True):
        if isinstance(original, np.ndarray):
            # numpy itself loads a big-endian array as a native one (same values)
            assert restored.dtype.kind == original.dtype.kind and restored.shape == original.shape
            assert restored.flags.f_contiguous == original.flags.f_contiguous
            if original.dtype != object:
                assert np.array_equal(restored, original)
        else:
            assert restored == original


def test_the_budget_grows_with_the_file_and_can_be_set(tmp_path: Path) -> None:
    payload = pickle.dumps(np.zeros(2_000_000), protocol=4)  # 16 MB: the default budget is 64x that
    assert safe_loads(payload).shape == (2_000_000,)
    with pytest.raises(TrajectoryAllocationError, match=r"asks to allocate 15\.3 MiB .* budget of 1\.0 MiB"):
        safe_loads(payload, allocation_budget=2**20)
