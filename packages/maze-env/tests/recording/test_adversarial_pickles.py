"""Adversarial trajectory files: every payload, in every protocol, hidden in a real episode, runs nothing."""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

import pytest
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.testing.crafted_pickles import PAYLOADS, Opcodes, dumps
from maze.env.trajectory_recording import (
    SimpleTrajectoryRecordingSetup,
    StateTrajectoryRecord,
    TrajectoryLoadError,
    TrajectoryWriterRegistry,
    load_trajectory,
)
from maze.env.trajectory_recording.safe_unpickler import UnsafeTrajectoryError, safe_loads
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


@pytest.fixture(scope="module")
def recorded_episode(tmp_path_factory: pytest.TempPathFactory) -> StateTrajectoryRecord:
    """One real CartPole episode record, as the recording wrapper writes it."""
    directory = tmp_path_factory.mktemp("episode")
    env = TrajectoryRecordingWrapper(GymMazeEnv("CartPole-v1"))
    env.action_space.seed(0)
    with SimpleTrajectoryRecordingSetup(directory, format="pickle"):  # the attacks target the pickle loader
        env.reset(seed=0)
        for _ in range(5):
            env.step(env.action_space.sample())
        env.flush()
    TrajectoryWriterRegistry.clear()
    (path,) = directory.glob("*.pkl")
    return load_trajectory(path, StateTrajectoryRecord)


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("payload", sorted(PAYLOADS))
def test_a_payload_hidden_in_a_valid_episode_is_refused_and_runs_nothing(
    tmp_path: Path, recorded_episode: StateTrajectoryRecord, payload: str, protocol: int
) -> None:
    marker = tmp_path / "ran"
    step = recorded_episode.step_records[2]
    original_info = step.info
    step.info = {"note": [1, 2, {"deep": Opcodes.payload(payload, marker)}]}
    try:
        path = tmp_path / "episode.pkl"
        path.write_bytes(dumps(recorded_episode, protocol))
    finally:
        step.info = original_info

    with pytest.raises(TrajectoryLoadError, match=r"episode\.pkl: refusing to load ") as error:
        load_trajectory(path, StateTrajectoryRecord)
    assert "could run code" in str(error.value)
    assert not marker.exists()


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
def test_the_payloads_are_live(tmp_path: Path, payload: str) -> None:
    """An ordinary unpickler runs each payload (protocol 4 resolves dotted names): the suite tests real attacks."""
    marker = tmp_path / "ran"
    pickle.loads(Opcodes.payload(payload, marker).pickle(protocol=4))
    assert marker.exists()


@pytest.mark.parametrize(
    ("module", "name", "why"),
    [
        ("maze.env.core.events", "itemgetter", r"class \(operator.itemgetter\), which can call arbitrary code"),
        ("maze.env.utils.factory", "inspect.functools.partial", "through 'maze.env.utils.factory.inspect'"),
        ("maze.env.utils.factory", "inspect.attrgetter", "which is a module, not an allowed class"),
        ("maze.env.utils.factory", "importlib", "it is a module"),
        ("maze.env.trajectory_recording.records", "StateRecord.__class__", "metaclass"),
        (
            "maze.env.trajectory_recording.records",
            "StateRecord.__init__",
            "callable function defined in 'maze.env.trajectory_recording.records'",
        ),
        ("maze.env.utils.factory", "Factory", "only maze's trajectory data classes"),
        ("maze.env.utils.factory", "Factory.__init__", "through 'maze.env.utils.factory.Factory', which is a class"),
        ("maze.env.core._meta", "StackTransparentMeta", "metaclass"),
        ("builtins", "getattr", "callable builtin_function_or_method"),
        ("builtins", "type", "metaclass"),
        ("builtins", "dict.fromkeys", "callable builtin_function_or_method"),
        ("numpy", "load", "callable function defined in 'numpy'"),
        ("gymnasium.spaces", "utils.flatten", "through 'gymnasium.spaces.utils'"),
    ],
)
def test_gadgets_and_foreign_objects_reached_through_maze_modules_are_refused(module: str, name: str, why: str) -> None:
    with pytest.raises(UnsafeTrajectoryError, match=rf"refusing to load {module}\.{name}: .*{why}"):
        safe_loads(Opcodes.ref(module, name).pickle())


def test_nothing_outside_the_allowed_packages_is_imported() -> None:
    assert "tabnanny" not in sys.modules
    with pytest.raises(UnsafeTrajectoryError, match="its module is not allowed, so nothing of it was imported"):
        safe_loads(Opcodes.ref("tabnanny", "check").pickle())
    assert "tabnanny" not in sys.modules


class TrustedState:
    """A state class of a module the user trusts explicitly."""

    def __init__(self) -> None:
        self.value = 5


def test_a_trusted_module_admits_its_own_objects_but_not_what_it_imports(tmp_path: Path) -> None:
    assert safe_loads(pickle.dumps(TrustedState()), trusted_modules=[__name__]).value == 5
    marker = tmp_path / "ran"
    system_through_trusted_module = Opcodes.ref(__name__, "os.system")(Opcodes.text(f"touch '{marker}'"))
    with pytest.raises(UnsafeTrajectoryError, match=rf"{__name__}\.os\.system: .*'{__name__}.os'.*module"):
        safe_loads(system_through_trusted_module.pickle(), trusted_modules=[__name__])
    with pytest.raises(UnsafeTrajectoryError, match=r"defined in 'posix'"):
        safe_loads(Opcodes.ref(__name__, "system").pickle(), trusted_modules=[__name__])
    assert not marker.exists()


system = os.system  # a foreign function re-exported by name from a trusted module (see the test above)


def test_a_maze_class_that_is_no_trajectory_data_is_refused_before_it_is_built(tmp_path: Path) -> None:
    """A file may not call the constructor of any maze class: this one creates the directory it is given."""
    marker = tmp_path / "created_by_the_constructor"
    payload = Opcodes.ref("maze.env.log_stats.writers", "LogStatsWriterFile")(Opcodes.text(str(marker)))
    with pytest.raises(UnsafeTrajectoryError, match="LogStatsWriterFile: .*only maze's trajectory data classes"):
        safe_loads(payload.pickle())
    assert not marker.exists()


def test_numpy_array_subclasses_that_open_files_are_refused(tmp_path: Path) -> None:
    """``numpy.memmap(path, mode='w+')`` would create (or truncate) any file and let the pickle fill it."""
    marker = tmp_path / "created_by_memmap"
    shape = Opcodes(pickle.MARK + b"I8\n" + pickle.TUPLE)
    payload = Opcodes.ref("numpy", "memmap")(
        Opcodes.text(str(marker)), Opcodes.text("uint8"), Opcodes.text("w+"), Opcodes(b"I0\n"), shape
    )
    with pytest.raises(UnsafeTrajectoryError, match=r"refusing to load numpy\.memmap: .*numpy\.memmap"):
        safe_loads(payload.pickle())
    assert not marker.exists()


def test_event_topics_and_marked_records_still_load() -> None:
    from maze.env.core.events import EventRecord
    from maze.env.log_stats.base_events import BaseEnvEvents

    record = EventRecord(BaseEnvEvents, BaseEnvEvents.reward, {"value": 1.0})
    for protocol in range(4, pickle.HIGHEST_PROTOCOL + 1):  # dotted names (the event method) need protocol 4
        assert safe_loads(pickle.dumps(record, protocol)) == record
    assert safe_loads(pickle.dumps(BaseEnvEvents())).__class__ is BaseEnvEvents
