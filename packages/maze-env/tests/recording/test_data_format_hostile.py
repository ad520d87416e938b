"""Hostile data-only trajectory files: each one gives one clear TrajectoryLoadError naming the file.

The files are built here by hand (zip members, ``.npy`` headers, JSON trees). Those whose
threat is memory are also loaded in a subprocess under a hard address-space limit.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
from maze.env.log_events.step_event_log import StepEventLog
from maze.env.trajectory_recording import StateRecord, StateTrajectoryRecord, TrajectoryLoadError, load_trajectory
from maze.env.trajectory_recording.data_format import record_to_data


def _valid_tree() -> tuple[dict, list[np.ndarray]]:
    record = StateTrajectoryRecord(id="e")
    for t in range(3):
        record.append(StateRecord(np.arange(4.0) + t, np.int64(t), StepEventLog(t), 1.0, t == 2, False, {}))
    return record_to_data(record)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def _npy_with_header(header: str) -> bytes:
    """A ``.npy`` whose header dict is ``header`` (version 1.0, or 2.0 for headers beyond 64 KiB)."""
    text = header + " " * ((-(len(header) + 13)) % 64) + "\n"
    if len(text) < 1 << 16:
        return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode("latin1")
    return b"\x93NUMPY\x02\x00" + len(text).to_bytes(4, "little") + text.encode("latin1")


def _zip(members: list[tuple[str, bytes]], compression: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        warnings.simplefilter("ignore")  # zipfile warns about the repeated name it is asked to write
        for name, payload in members:
            archive.writestr(name, payload)
    return buffer.getvalue()


def _file(tree: dict | None = None, pools: list[bytes] | None = None, json_text: str | None = None) -> bytes:
    valid_tree, valid_pools = _valid_tree()
    tree_bytes = (json_text if json_text is not None else json.dumps(tree or valid_tree)).encode()
    pool_bytes = pools if pools is not None else [_npy(pool) for pool in valid_pools]
    return _zip([("trajectory.json", tree_bytes)] + [(f"arrays/{i}.npy", p) for i, p in enumerate(pool_bytes)])


def _tree(**changes) -> dict:
    tree, _ = _valid_tree()
    tree.update(changes)
    return tree


def _column(name: str, node: dict) -> bytes:
    """The valid file with column ``name`` replaced (pool 0: the float64 states, pool 1: the int64 actions 0, 1, 2)."""
    tree, _ = _valid_tree()
    if name.startswith("step_event_log."):
        tree["columns"]["step_event_log"][name.split(".")[1]] = node
    else:
        tree["columns"][name] = node
    return _file(tree)


def _deflated_bomb() -> bytes:
    return _zip([("trajectory.json", b"{}"), ("arrays/0.npy", bytes(64 << 20))], compression=zipfile.ZIP_DEFLATED)


def _zero_width_rows() -> bytes:
    """A billion sub-steps in a few hundred bytes: columns of zero-width rows (views of no pool elements)."""
    rows = 10**9
    names = ("step_key", "agent_id", "observation", "action", "reward", "terminated", "truncated", "info", "logits")
    columns = {name: {"@": "S", "m": 0, "o": 0, "s": [rows, 0]} for name in (*names, "value", "next_observation")}
    tree = {"format": "maze-trajectory", "version": 2, "record": "spaces", "id": "e", "steps": 1}
    return _file({**tree, "substeps": [rows], "columns": columns})


HOSTILE: dict[str, tuple] = {
    "structured_dtype": (lambda: _file(pools=[_npy(np.zeros(2, dtype=[("a", "<f8")]))]), "structured or sub-array"),
    "subarray_dtype": (
        lambda: _file(pools=[_npy_with_header("{'descr': ('<f8', (4,)), 'fortran_order': False, 'shape': (3,), }")]),
        "bad .npy header|sub-array",
    ),
    "object_dtype": (lambda: _file(pools=[_npy(np.array([1, "a"], dtype=object))]), "dtype object"),
    "datetime_dtype": (lambda: _file(pools=[_npy(np.zeros(2, "M8[s]"))]), "only 'biufcSU' kinds"),
    "shape_beyond_member": (
        lambda: _file(pools=[_npy_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (10000000000,), }")]),
        "header claims 10000000000 x 8 bytes, the member holds 0",
    ),
    "huge_npy_header": (lambda: _file(pools=[_npy_with_header("{" + " " * 70000 + "}")]), "bad .npy header"),
    "compressed_bomb": (_deflated_bomb, "is compressed; only stored members are read"),
    "deep_json": (lambda: _file(json_text="[" * 200000 + "]" * 200000), "nests too deeply"),
    "deep_value": (
        lambda: _file(_tree(renderer=json.loads('{"@":"t","v":[' * 150 + "1" + "]}" * 150))),
        "nest more than 100 levels",
    ),
    "many_members": (
        lambda: _zip([("trajectory.json", b"{}")] + [(f"arrays/{i}.npy", b"") for i in range(100)]),
        "101 members, more than the limit of 64",
    ),
    "repeated_member": (lambda: _zip([("trajectory.json", b"{}"), ("trajectory.json", b"{}")]), "repeated member"),
    "unexpected_member": (lambda: _zip([("trajectory.json", b"{}"), ("../../etc/passwd", b"")]), "unexpected"),
    "wrong_version": (lambda: _file(_tree(version=99)), "format version '99' is not supported"),
    "wrong_format": (lambda: _file(_tree(format="something-else")), "no maze-trajectory record"),
    "truncated": (lambda: _file()[:-40], "truncated or corrupt"),
    "not_a_zip": (lambda: b"\x80\x04K\x01.", "truncated or corrupt"),
    "reference_out_of_pool": (
        lambda: _file(_tree(renderer={"@": "a", "m": 0, "o": 10**12, "s": [2]})),
        "exceeds its pool",
    ),
    "unknown_schema": (lambda: _file(_tree(record="os.system")), "unknown record schema"),
    "class_not_allowed": (
        lambda: _file(_tree(renderer={"@": "o", "c": "subprocess:Popen", "v": {"args": "id"}})),
        "refusing to rebuild subprocess.Popen",
    ),
    "maze_class_not_marked": (
        lambda: _file(_tree(renderer={"@": "h", "c": "maze.env.utils.files:Path", "v": "/"})),
        "refusing to rebuild",
    ),
    "zero_width_rows": (_zero_width_rows, "allocation budget"),
    "index_beyond_table": (
        lambda: _column("info", {"@": "K", "t": ["a"], "m": 1, "o": 0, "s": [3]}),
        "an index beyond its table of 1 values",
    ),
    "tuple_list_lengths_off": (
        lambda: _column(
            "info",
            {
                "@": "R",
                "u": {"m": 0, "o": 0, "s": [2, 2]},
                "i": {"m": 1, "o": 0, "s": [2]},
                "n": {"m": 1, "o": 0, "s": [3]},
            },
        ),
        "list lengths add up to 3, not 2 tuples",
    ),
    "tuples_of_strings_array": (
        lambda: _column("info", {"@": "R", "u": {"m": 0, "o": 0, "s": [12]}, "i": {"m": 1, "o": 0, "s": [3]}}),
        "tuples stored as a float64 array",
    ),
    "float_event_counts": (
        lambda: _column("step_event_log.n", {"@": "A", "m": 0, "o": 0, "s": [3]}),
        "ints stored as a float64 array",
    ),
    "event_kind_out_of_range": (
        lambda: _column("step_event_log.e", {"@": "L", "v": [0]}),
        "step_event_log.events: no column of 0 ints",
    ),
    "negative_progression": (
        lambda: _column("step_event_log.n", {"@": "P", "a": -5, "d": 0}),
        r"a value beyond \[-1,",
    ),
    "json_bomb_over_budget": (lambda: _file(json_text="[" + "[]," * 2_000_000 + "[]]"), "allocation budget"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_file_gives_one_clear_error_naming_it(tmp_path: Path, case: str) -> None:
    build, message = HOSTILE[case]
    path = tmp_path / f"{case}.traj.npz"
    path.write_bytes(build())
    budget = 8 << 20 if case == "json_bomb_over_budget" else None
    with pytest.raises(TrajectoryLoadError, match=message) as error:
        load_trajectory(path, allocation_budget=budget)
    assert str(error.value).startswith(f"trajectory file {path}")
    assert error.value.__suppress_context__ or case in ("truncated", "not_a_zip")  # one error, not a chain


def test_nothing_the_file_names_is_imported(tmp_path: Path) -> None:
    path = tmp_path / "x.traj.npz"
    path.write_bytes(_file(_tree(renderer={"@": "o", "c": "antigravity:X", "v": {}})))
    with pytest.raises(TrajectoryLoadError, match="its module is not allowed, so nothing of it was imported"):
        load_trajectory(path)
    assert "antigravity" not in sys.modules


_MEMORY_CASES = ("shape_beyond_member", "compressed_bomb", "zero_width_rows", "deep_json", "reference_out_of_pool")

_UNDER_A_MEMORY_LIMIT = """
import json, resource, sys, time
from maze.env.trajectory_recording import load_trajectory
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
with open("/proc/self/statm") as statm:
    used = int(statm.read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (300 << 20), hard))
outcomes = {}
for path in sys.argv[1:]:
    start = time.perf_counter()
    try:
        load_trajectory(path)
        outcomes[path] = ("loaded", "", 0.0)
    except BaseException as error:
        outcomes[path] = (type(error).__name__, str(error)[:500], time.perf_counter() - start)
print(json.dumps(outcomes))
"""


def test_memory_attacks_are_refused_under_a_hard_address_space_limit(tmp_path: Path) -> None:
    paths = []
    for case in _MEMORY_CASES:
        path = tmp_path / f"{case}.traj.npz"
        path.write_bytes(HOSTILE[case][0]())
        paths.append(str(path))
    result = subprocess.run(
        [sys.executable, "-c", _UNDER_A_MEMORY_LIMIT, *paths], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outcomes = json.loads(result.stdout)
    for case, path in zip(_MEMORY_CASES, paths, strict=True):
        error_type, message, seconds = outcomes[path]
        assert error_type in ("TrajectoryLoadError", "TrajectoryMemoryError"), (case, error_type, message)
        assert message.startswith(f"trajectory file {path}") and seconds < 5.0, (case, message, seconds)
