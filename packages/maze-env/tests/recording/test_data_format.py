"""The data-only trajectory format: records round-trip exactly; what has no data form fails when written."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from maze.env.core.actor import ActorID
from maze.env.examples.cutting_2d import (
    SIMPLE_PROBLEM_DEMAND,
    Cutting2DRenderer,
    FlatCutting2DGreedyPolicy,
    maze_env_factory,
    struct_env_factory,
)
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.log_events.step_event_log import StepEventLog
from maze.env.testing.record_equality import assert_same_record
from maze.env.trajectory_recording import (
    SpacesRecord,
    SpacesTrajectoryRecord,
    StateRecord,
    StateTrajectoryRecord,
    StructuredSpacesRecord,
    TrajectoryDataError,
    TrajectoryLoadError,
    TrajectoryWriter,
    TrajectoryWriterFile,
    TrajectoryWriterRegistry,
    load_trajectory,
)
from maze.env.trajectory_recording.data_format import read_data_trajectory, write_data_trajectory
from maze.env.wrappers.time_limit import TimeLimitWrapper
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper


class _Collect(TrajectoryWriter):
    def __init__(self) -> None:
        self.records: list = []

    def write(self, episode_record) -> None:
        self.records.append(episode_record)


def _record(env, policy, steps: int, seed: int = 0):
    """Runs ``env`` through a recording wrapper for up to ``steps`` steps; returns the episode record."""
    writer = _Collect()
    TrajectoryWriterRegistry.register_writer(writer)
    try:
        recorded = TrajectoryRecordingWrapper(env)
        observation, _ = recorded.reset(seed=seed)
        for _ in range(steps):
            observation, _, terminated, truncated, _ = recorded.step(policy(observation, recorded))
            if terminated or truncated:
                break
        recorded.close()
    finally:
        TrajectoryWriterRegistry.unregister_writer(writer)
    return writer.records[-1]


def _round_trip(record, tmp_path: Path, **load_kwargs):
    TrajectoryWriterFile(tmp_path).write(record)
    path = tmp_path / f"{record.id}.traj.npz"
    assert sorted(tmp_path.iterdir()) == [path]
    loaded = load_trajectory(path, type(record), **load_kwargs)
    assert_same_record(record, loaded)
    return loaded, path


def test_a_cartpole_episode_round_trips(tmp_path: Path) -> None:
    env = GymMazeEnv("CartPole-v1")
    env.action_space.seed(0)
    record = _record(env, lambda _, recorded: recorded.action_space.sample(), 40)
    loaded, path = _round_trip(record, tmp_path)
    assert isinstance(loaded.step_records[0].maze_state, np.ndarray)
    assert type(loaded.step_records[0].maze_action) is np.int64
    with zipfile.ZipFile(path) as archive:  # plain layout: one JSON tree and one pool per dtype
        assert archive.namelist()[0] == "trajectory.json"
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
    loaded.step_records[0].maze_state[0] = 99.0  # loaded arrays are writable, and independent per step
    assert loaded.step_records[1].maze_state[0] != 99.0


def test_a_cutting_2d_episode_with_events_and_renderer_round_trips(tmp_path: Path) -> None:
    env = TimeLimitWrapper(maze_env_factory(5, (4, 3), SIMPLE_PROBLEM_DEMAND), 8)
    policy = FlatCutting2DGreedyPolicy()
    record = _record(env, lambda observation, _: policy.compute_action(observation, deterministic=True), 8)
    assert isinstance(record.renderer, Cutting2DRenderer)
    assert sum(len(step.step_event_log) for step in record) > 0
    loaded, _ = _round_trip(record, tmp_path)
    assert loaded.renderer == Cutting2DRenderer()
    event = loaded.step_records[0].step_event_log.events[0]
    assert event.interface_method.__qualname__.startswith(event.interface_class.__qualname__)
    assert isinstance(loaded.step_records[0].maze_state.inventory[0], tuple)


def test_a_structured_cutting_2d_episode_round_trips(tmp_path: Path) -> None:
    env = struct_env_factory(5, (4, 3), SIMPLE_PROBLEM_DEMAND)
    env.action_space.seed(1)
    record = _record(env, lambda _, recorded: recorded.action_space.sample(), 6)
    _round_trip(record, tmp_path)


def test_spaces_records_with_dict_observations_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    steps = []
    for t in range(3):
        selection = SpacesRecord(
            ActorID("select", 0),
            {"inventory": rng.random((3, 2)).astype(np.float32), "mask": np.array([True, False, t == 1])},
            {"piece": np.int64(t)},
            0.5,
            info={"t": t, "nested": {"tuple": (1, "a"), 3: [None, 1.5]}},
        )
        cut = SpacesRecord(
            ActorID(1, 0),
            {"piece": rng.random(2)},
            {"rotation": np.int32(1)},
            np.float32(-1.0),
            terminated=t == 2,
            logits={"rotation": np.array([0.1, -0.2], dtype=np.float32)},
            value=np.float64(0.3) if t else None,
            next_observation={"piece": np.zeros(2), "text": np.array(["ab", "c"])},
        )
        steps.append(StructuredSpacesRecord([selection, cut][: 1 + (t > 0)]))
    _round_trip(SpacesTrajectoryRecord(id="spaces-1", step_records=steps), tmp_path)


@dataclass
class _LocalState:
    """A user's MazeState: a dataclass in a module the loader does not trust by default."""

    position: np.ndarray
    label: str


class _HookedAction:
    """A user's MazeAction that is no dataclass but declares its data form."""

    def __init__(self, moves: list[int]) -> None:
        self.moves = moves

    def __eq__(self, other: object) -> bool:
        return type(other) is _HookedAction and other.moves == self.moves

    def to_data(self) -> dict:
        return {"moves": self.moves}

    @classmethod
    def from_data(cls, data: dict) -> _HookedAction:
        return cls(data["moves"])


def _user_record() -> StateTrajectoryRecord:
    record = StateTrajectoryRecord(id="user-episode")
    for t in range(3):
        state = _LocalState(np.arange(3.0) + t, f"s{t}")
        record.append(StateRecord(state, _HookedAction([t, t + 1]), StepEventLog(t), float(t), t == 2, False, {}))
    return record


def test_user_classes_are_rebuilt_only_from_trusted_modules(tmp_path: Path) -> None:
    record = _user_record()
    TrajectoryWriterFile(tmp_path).write(record)
    path = tmp_path / "user-episode.traj.npz"
    with pytest.raises(
        TrajectoryLoadError, match=rf"{path}.*_LocalState.*trusted_modules=\['{__name__.split('.')[0]}'\]"
    ):
        load_trajectory(path)
    assert_same_record(record, load_trajectory(path, trusted_modules=[__name__]))


class _Opaque:
    def __init__(self) -> None:
        self.handle = object()


def test_a_value_without_a_data_form_fails_at_write_time_naming_the_fixes(tmp_path: Path) -> None:
    record = StateTrajectoryRecord(id="opaque")
    record.append(StateRecord(_Opaque(), 0, StepEventLog(0), 0.0, True, False))
    with pytest.raises(
        TrajectoryDataError, match=r"maze_state is a .*_Opaque.*dataclass.*to_data\(\).*format='pickle'"
    ):
        TrajectoryWriterFile(tmp_path).write(record)
    assert list(tmp_path.iterdir()) == []  # nothing (not even a temporary file) is left
    with pytest.raises(TrajectoryDataError, match="array of dtype object"):
        write_data_trajectory(io.BytesIO(), _with_state(np.array([object()])))


def _with_state(state) -> StateTrajectoryRecord:
    return StateTrajectoryRecord(id="x", step_records=[StateRecord(state, 0, StepEventLog(0), 0.0, True, False)])


def test_pickle_is_an_explicit_opt_in(tmp_path: Path) -> None:
    record = StateTrajectoryRecord(id="opaque")
    record.append(StateRecord({"a": np.ones(2)}, 0, StepEventLog(0), 0.0, True, False))
    TrajectoryWriterFile(tmp_path, format="pickle").write(record)
    assert [path.name for path in tmp_path.iterdir()] == ["opaque.pkl"]
    assert_same_record(record, load_trajectory(tmp_path / "opaque.pkl"))
    with pytest.raises(ValueError, match="unknown trajectory format 'json'"):
        TrajectoryWriterFile(tmp_path, format="json")


def test_empty_and_odd_values_round_trip() -> None:
    values = [
        np.zeros((0, 3), np.float32),
        np.array(3.5),
        np.arange(6, dtype=">i4").reshape(2, 3).T,
        np.complex64(1 + 2j),
        {},
        (),
        [[], {"": None}],
        float("inf"),
        2**70,
        np.array([b"x", b"yz"]),
    ]
    for state in values:
        buffer = io.BytesIO()
        write_data_trajectory(buffer, _with_state(state))
        buffer.seek(0)
        loaded = read_data_trajectory(buffer).step_records[0].maze_state
        if isinstance(state, np.ndarray):  # stored in C order and native byte order where numpy keeps it
            assert loaded.shape == state.shape and np.array_equal(loaded, state)
        else:
            assert_same_record(state, loaded)


_COLUMNS = {
    "bools": [i % 3 == 0 for i in range(40)],
    "consecutive ints": list(range(5, 45)),
    "ints": [(i * 7919) % 1000 - 500 for i in range(40)],
    "ints beyond int64": [2**70 + i for i in range(40)],
    "floats": [0.0, -0.0, float("inf"), float("nan"), 1.5] * 8,
    "repeated strings and None": ["a", None, "b", "a"] * 10,
    "mixed scalars": [1, True, 1.0, "1", None] * 8,
    "few values": [True, 2, None],
    "tuples of ints": [(1, 2), (3, 4), (1, 2)] * 14,
    "tuples of floats": [(0.0, -0.0), (-0.0, 0.0), (float("nan"), 2.5)] * 14,
    "lists of tuples": [[(i, j) for j in range(i % 5)] for i in range(40)],
    "tuples of strings": [(1, "a"), (2, "b")] * 20,
    "lists of mixed tuples": [[(1, "a")], []] * 20,
}


@pytest.mark.parametrize("name", sorted(_COLUMNS))
def test_columns_round_trip_with_their_types(name: str) -> None:
    values = _COLUMNS[name]
    steps = [StateRecord(value, 0, StepEventLog(step), 0.0, False, False) for step, value in enumerate(values)]
    buffer = io.BytesIO()
    write_data_trajectory(buffer, StateTrajectoryRecord(id="c", step_records=steps))
    buffer.seek(0)
    loaded = [step.maze_state for step in read_data_trajectory(buffer).step_records]
    assert [repr(value) for value in loaded] == [repr(value) for value in values]  # -0.0 vs 0.0, True vs 1, tuples
