import pickle
import uuid
from dataclasses import dataclass

import numpy as np
import pytest
from maze.env.core.events import Pubsub
from maze.env.core.rendering import Renderer
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.log_events.step_event_log import StepEventLog
from maze.env.testing.env_checker import check_env
from maze.env.testing.fake_envs import build_dummy_maze_env, build_multi_step_env
from maze.env.trajectory_recording import (
    SimpleTrajectoryRecordingSetup,
    StateRecord,
    StateTrajectoryRecord,
    TrajectoryLoadError,
    TrajectoryWriter,
    TrajectoryWriterFile,
    TrajectoryWriterRegistry,
    episode_id_of,
    load_trajectory,
)
from maze.env.wrappers.time_limit import TimeLimitWrapper
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper


@pytest.fixture(autouse=True)
def _empty_registry():
    TrajectoryWriterRegistry.clear()
    yield
    TrajectoryWriterRegistry.clear()


class _CollectingWriter(TrajectoryWriter):
    def __init__(self):
        self.records = []

    def write(self, episode_record):
        self.records.append(episode_record)


def _collect():
    writer = _CollectingWriter()
    TrajectoryWriterRegistry.register_writer(writer)
    return writer


def _run_episode(env, seed=None):
    """Runs one episode to its end; returns its step count."""
    env.reset(seed=seed)
    steps, done = 0, False
    while not done:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        steps += 1
        done = terminated or truncated
    return steps


def test_three_cartpole_episodes_give_three_uuid_files(tmp_path):
    env = TrajectoryRecordingWrapper(GymMazeEnv("CartPole-v1"))
    env.action_space.seed(0)
    with SimpleTrajectoryRecordingSetup(tmp_path):
        step_counts = [_run_episode(env, seed=seed) for seed in range(3)]
    assert TrajectoryWriterRegistry.writers == []
    files = sorted(tmp_path.glob("*.traj.npz"))
    assert len(files) == 3
    assert sorted(tmp_path.iterdir()) == files  # no temporary files are left
    lengths = {}
    for path in files:
        episode_id = episode_id_of(path)
        assert str(uuid.UUID(episode_id)) == episode_id
        record = load_trajectory(path, StateTrajectoryRecord)
        assert record.id == episode_id
        lengths[record.id] = len(record)
        assert record.renderer is None  # a gymnasium renderer cannot replay recorded states
        assert all(isinstance(step, StateRecord) for step in record)
        assert [step.done for step in record] == [False] * (len(record) - 1) + [True]
        assert [step.step_event_log.env_time for step in record] == list(range(len(record)))
    assert sorted(lengths.values()) == sorted(step_counts)
    env.close()


def test_records_hold_state_before_action_and_step_data():
    writer = _collect()
    env = TrajectoryRecordingWrapper(build_dummy_maze_env(max_steps=3))
    env.action_space.seed(1)
    observation, _ = env.reset(seed=3)
    states, actions, rewards = [], [], []
    for _ in range(3):
        states.append(env.get_maze_state())
        action = env.action_space.sample()
        _, reward, terminated, truncated, _ = env.step(action)
        actions.append(action)
        rewards.append(reward)
    (record,) = writer.records
    assert truncated and not terminated and len(record) == 3
    for step, state, action, reward in zip(record, states, actions, rewards, strict=True):
        np.testing.assert_array_equal(step.maze_state["position"], state["position"])
        assert step.maze_action["discrete"] == action["discrete"]
        assert step.reward == reward
        assert step.serializable_components == {}
        assert isinstance(step.step_event_log, StepEventLog)
    assert record.step_records[-1].truncated
    assert record.id == env.get_episode_id()


def test_states_are_copied_when_the_env_updates_them_in_place():
    writer = _collect()
    env = TrajectoryRecordingWrapper(GymMazeEnv("CartPole-v1"))
    env.reset(seed=0)
    first_state = env.get_maze_state().copy()
    env.core_env.get_maze_state()[:] = 99.0  # mutate the live state object the env handed out
    env.step({"action": 0})
    env.flush()
    (record,) = writer.records
    np.testing.assert_array_equal(record.step_records[0].maze_state, first_state)


class _PieceEvents:
    def piece_cut(self, size):
        """A piece was cut."""


@dataclass
class _StateRenderer(Renderer):
    """A dataclass (of no fields), so that data-only trajectory files store it."""

    def render(self, maze_state, maze_action, events, **kwargs):
        self.drawn = maze_state


def test_events_and_renderer_are_recorded_and_survive_the_file(tmp_path):
    env = build_dummy_maze_env(max_steps=3)
    core = env.core_env
    events = core.context.event_service
    topic = Pubsub(events).create_event_topic(_PieceEvents)
    core_step = core.step

    def step_firing_events(maze_action):
        topic.piece_cut(size=core.context.step_id)
        return core_step(maze_action)

    core.step = step_firing_events
    core.get_renderer = _StateRenderer
    env = TrajectoryRecordingWrapper(env)
    with SimpleTrajectoryRecordingSetup(tmp_path):
        _run_episode(env, seed=0)
    (path,) = tmp_path.glob("*.traj.npz")
    record = load_trajectory(path, StateTrajectoryRecord, trusted_modules=[__name__])
    assert [[event.attributes["size"] for event in step.step_event_log] for step in record] == [[0], [1], [2]]
    assert all(event.interface_method.__name__ == "piece_cut" for event in record.step_records[0].step_event_log)
    assert isinstance(record.renderer, Renderer)
    record.renderer.render(record.step_records[1].maze_state, None, record.step_records[1].step_event_log)
    assert record.renderer.drawn is record.step_records[1].maze_state


def test_reset_mid_episode_and_outer_time_limit_hand_on_the_episode():
    writer = _collect()
    env = TimeLimitWrapper(TrajectoryRecordingWrapper(build_dummy_maze_env(max_steps=100)), max_episode_steps=4)
    for seed in range(2):
        assert _run_episode(env, seed=seed) <= 4
    env.reset()
    env.step(env.action_space.sample())
    env.reset()  # ends the 1-step episode; the fresh one has no steps and is not written
    env.close()
    assert [len(record) for record in writer.records][-1] == 1
    assert len(writer.records) == 3
    assert len({record.id for record in writer.records}) == 3


def test_flush_writes_the_episode_so_far_and_the_end_supersedes_it(tmp_path):
    env = TrajectoryRecordingWrapper(build_dummy_maze_env(max_steps=5))
    with SimpleTrajectoryRecordingSetup(tmp_path):
        env.reset(seed=0)
        env.step(env.action_space.sample())
        env.flush()
        (path,) = tmp_path.glob("*.traj.npz")
        assert len(load_trajectory(path)) == 1
        env.step(env.action_space.sample())
        env.close()
    assert list(tmp_path.glob("*.traj.npz")) == [path]
    assert len(load_trajectory(path)) == 2


def test_multi_step_env_records_every_sub_step():
    writer = _collect()
    env = TrajectoryRecordingWrapper(build_multi_step_env(max_steps=2))
    steps = _run_episode(env, seed=0)
    (record,) = writer.records
    assert steps == len(record) == 4
    assert [step.step_event_log.env_time for step in record] == [0, 0, 1, 1]


def test_registry_is_a_no_op_without_writers():
    assert TrajectoryWriterRegistry.writers == []
    TrajectoryWriterRegistry.record_trajectory_data(object())  # a writer would reject this
    env = TrajectoryRecordingWrapper(build_dummy_maze_env(max_steps=2))
    _run_episode(env, seed=0)  # recording without writers works and stores nothing
    with pytest.raises(TypeError, match="expects a TrajectoryWriter"):
        TrajectoryWriterRegistry.register_writer(object())


def test_recording_wrapper_passes_the_env_checker():
    check_env(TrajectoryRecordingWrapper(GymMazeEnv("CartPole-v1")))
    check_env(TrajectoryRecordingWrapper(build_multi_step_env()))


def test_recording_wrapper_needs_a_recordable_env():
    import gymnasium as gym

    with pytest.raises(ConfigurationError, match="Wrap a plain gymnasium env with GymMazeEnv"):
        TrajectoryRecordingWrapper(gym.make("CartPole-v1"))


def _write_one(tmp_path):
    record = StateTrajectoryRecord(id=str(uuid.uuid4()))
    record.append(StateRecord({"x": 1}, {"a": 0}, StepEventLog(0), 1.0, True, False))
    TrajectoryWriterFile(tmp_path).write(record)
    return tmp_path / f"{record.id}.traj.npz"


def test_truncated_file_raises_naming_it(tmp_path):
    path = _write_one(tmp_path)
    assert len(load_trajectory(path)) == 1
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(TrajectoryLoadError, match="truncated or corrupt") as error:
        load_trajectory(path)
    assert str(path) in str(error.value)


def test_file_with_another_object_raises(tmp_path):
    path = tmp_path / "other.pkl"
    path.write_bytes(pickle.dumps({"not": "a record"}))
    with pytest.raises(TrajectoryLoadError, match=f"{path}.*holds a builtins.dict, not a TrajectoryRecord"):
        load_trajectory(path)
    good = _write_one(tmp_path)
    with pytest.raises(TrajectoryLoadError, match="not a SpacesTrajectoryRecord"):
        from maze.env.trajectory_recording import SpacesTrajectoryRecord

        load_trajectory(good, SpacesTrajectoryRecord)


def test_missing_file_raises(tmp_path):
    with pytest.raises(TrajectoryLoadError, match="missing.pkl does not exist"):
        load_trajectory(tmp_path / "missing.pkl")


def test_writer_refuses_unsafe_ids(tmp_path):
    with pytest.raises(ValueError, match="cannot be used as a file name"):
        TrajectoryWriterFile(tmp_path).write(StateTrajectoryRecord(id="../escape"))
    with pytest.raises(TypeError, match="expects a TrajectoryRecord"):
        TrajectoryWriterFile(tmp_path).write({"id": "x"})
    assert list(tmp_path.iterdir()) == []
