"""Fuzzing the data-only trajectory reader: mutated files, and valid containers around mutated JSON trees."""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fuzzing import assert_handled, mutations
from hypothesis import given
from hypothesis import strategies as st
from maze.env.examples.cutting_2d import maze_env_factory
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.trajectory_recording import (
    SimpleTrajectoryRecordingSetup,
    TrajectoryLoadError,
    TrajectoryWriterRegistry,
    load_trajectory,
)
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper

_WORKDIR = Path(tempfile.mkdtemp(prefix="maze-fuzz-data-"))


def _recorded_episodes() -> list[bytes]:
    """A short CartPole episode and a short Cutting-2D episode (events, renderer) as data-only files."""
    cutting = maze_env_factory(max_pieces_in_inventory=20, raw_piece_size=(100, 100), static_demand=(30, 15))
    files = []
    for name, env in (("cartpole", GymMazeEnv("CartPole-v1")), ("cutting", cutting)):
        directory = _WORKDIR / name
        recording = TrajectoryRecordingWrapper(env)
        recording.action_space.seed(0)
        with SimpleTrajectoryRecordingSetup(directory):
            recording.reset(seed=0)
            for _ in range(6):
                recording.step(recording.action_space.sample())
            recording.flush()
        TrajectoryWriterRegistry.clear()
        files.extend(path.read_bytes() for path in sorted(directory.iterdir()))
    return files


SEEDS = _recorded_episodes()


def _load(data: bytes) -> None:
    path = _WORKDIR / "input.traj.npz"
    path.write_bytes(data)
    load_trajectory(path)


def _tree_member(archive: zipfile.ZipFile) -> str:
    return next(name for name in archive.namelist() if name.endswith(".json"))


HOSTILE_VALUES = st.one_of(
    st.sampled_from([None, True, -1, 0, 2**31, 2**63, -(2**63), 10**30, 1e308, float("nan"), "", "x" * 1000]),
    st.sampled_from(["numpy.ndarray", "os.system", "maze.env.utils.factory.Factory", "builtins.eval"]),
    st.lists(st.integers(-5, 5), max_size=6),
    st.recursive(st.integers(-3, 3), lambda inner: st.lists(inner, max_size=3), max_leaves=50),
    st.dictionaries(st.sampled_from(["pool", "offset", "shape", "dtype", "kind", "class"]), st.integers(-9, 99)),
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (a tuple of keys and indices) into a JSON tree."""
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


def _replaced(node: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    copy = dict(node) if isinstance(node, dict) else list(node)
    copy[path[0]] = _replaced(node[path[0]], path[1:], value)
    return copy


@st.composite
def mutated_trees(draw: st.DrawFn) -> bytes:
    """A seed file whose JSON tree has up to 3 nodes replaced by hostile values, zipped validly again."""
    source = zipfile.ZipFile(io.BytesIO(draw(st.sampled_from(SEEDS))))
    member = _tree_member(source)
    tree = json.loads(source.read(member))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(tree)))
        tree = _replaced(tree, path, draw(HOSTILE_VALUES))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            payload = json.dumps(tree).encode() if info.filename == member else source.read(info)
            target.writestr(info.filename, payload)
    return buffer.getvalue()


@given(mutations(SEEDS))
def test_mutated_files_are_handled(data: bytes) -> None:
    assert_handled(_load, data, clean=(TrajectoryLoadError,))


@given(mutated_trees())
def test_valid_containers_around_hostile_trees_are_handled(data: bytes) -> None:
    assert_handled(_load, data, clean=(TrajectoryLoadError,))


@pytest.mark.parametrize("index", range(len(SEEDS)))
def test_the_seeds_load(index: int) -> None:
    path = _WORKDIR / f"seed{index}.traj.npz"
    path.write_bytes(SEEDS[index])
    assert len(load_trajectory(path)) == 6
