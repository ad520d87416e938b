"""The allow-listed unpickler: maze's records load, files crafted to run code are refused."""

from __future__ import annotations

import os
import pickle
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from maze.env.examples.cutting_2d.events import CuttingEvents
from maze.env.trajectory_recording.safe_unpickler import UnsafeTrajectoryError, safe_loads
from maze.env.trajectory_recording.trajectory_files import TrajectoryLoadError, load_trajectory
from maze.env.utils import files


class _RunsCommand:
    """Unpickling calls ``os.system`` with a command that creates a marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


class _WritesFile:
    """Unpickling calls a maze function (not an event method) that writes a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return files.atomic_write_bytes, (str(self.marker), b"owned")


class _LocalState:
    """A class of a module the unpickler does not trust by default."""

    def __init__(self) -> None:
        self.value = 3


def test_plain_data_numpy_spaces_and_event_methods_load() -> None:
    data = {
        "array": np.arange(6, dtype=np.float32).reshape(2, 3),
        "scalar": np.int64(7),
        "space": spaces.Box(0.0, 1.0, (2,), np.float32),
        "nested": OrderedDict(a=[1, 2.5, "x", None, (True, b"b")], b={1, 2}),
        "event": CuttingEvents.valid_cut,
    }
    loaded = safe_loads(pickle.dumps(data))
    assert np.array_equal(loaded["array"], data["array"]) and loaded["array"].dtype == np.float32
    assert loaded["scalar"] == 7 and loaded["space"] == data["space"]
    assert loaded["nested"] == data["nested"] and loaded["event"] is CuttingEvents.valid_cut


@pytest.mark.parametrize("crafted", [_RunsCommand, _WritesFile])
def test_a_file_crafted_to_run_code_is_refused_and_nothing_runs(tmp_path: Path, crafted: type) -> None:
    marker = tmp_path / "marker"
    path = tmp_path / "episode.pkl"
    path.write_bytes(pickle.dumps(crafted(marker)))

    with pytest.raises(TrajectoryLoadError, match=r"episode\.pkl: refusing to load") as error:
        load_trajectory(path)
    assert isinstance(error.value.__cause__, UnsafeTrajectoryError) or "could run code" in str(error.value)
    assert not marker.exists()


def test_unsafe_mode_and_trusted_modules_are_explicit(tmp_path: Path) -> None:
    payload = pickle.dumps(_LocalState())
    with pytest.raises(UnsafeTrajectoryError, match=rf"trusted_modules=\['{__name__.split('.')[0]}'\]"):
        safe_loads(payload)
    assert safe_loads(payload, trusted_modules=[__name__]).value == 3
    marker = tmp_path / "marker"
    with pytest.raises(UnsafeTrajectoryError, match="safe=False"):
        safe_loads(pickle.dumps(_WritesFile(marker)))
    assert not marker.exists()
