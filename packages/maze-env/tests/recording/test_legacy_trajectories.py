"""Pickle trajectory files written by earlier maze versions still load, and convert to the data-only format."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from maze.env.examples.cutting_2d import Cutting2DMazeAction, Cutting2DMazeState, Cutting2DRenderer, CuttingEvents
from maze.env.testing.record_equality import assert_same_record
from maze.env.trajectory_recording import (
    SpacesTrajectoryRecord,
    StateTrajectoryRecord,
    TrajectoryWriterFile,
    load_trajectory,
)

LEGACY = Path(__file__).parent / "legacy_trajectories"


def test_the_cartpole_file_loads() -> None:
    record = load_trajectory(LEGACY / "cartpole_state_record.pkl", StateTrajectoryRecord)
    assert len(record) == 12 and record.renderer is None
    assert record.step_records[0].maze_state.dtype == np.float32 and record.step_records[0].maze_state.shape == (4,)
    assert [step.truncated for step in record] == [False] * 11 + [True]


def test_the_cutting_2d_file_loads_with_events_and_renderer() -> None:
    record = load_trajectory(LEGACY / "cutting_2d_state_record.pkl", StateTrajectoryRecord)
    assert len(record) == 6 and isinstance(record.renderer, Cutting2DRenderer) and record.renderer.pause == 0.1
    first = record.step_records[0]
    assert first.maze_state == Cutting2DMazeState([(4, 3)], 5, (1, 2), (4, 3))
    assert first.maze_action == Cutting2DMazeAction(0, False, False)
    assert list(first.step_event_log.query_events(CuttingEvents.valid_cut))[0].attributes["cutting_area"] == 2.0


def test_the_spaces_file_loads() -> None:
    record = load_trajectory(LEGACY / "structured_spaces_record.pkl", SpacesTrajectoryRecord)
    assert [len(step) for step in record] == [2, 2, 2, 2]
    assert record.step_records[-1].terminated and record.step_records[0].actor_ids[1].step_key == "cutting"


@pytest.mark.parametrize("name", sorted(path.name for path in LEGACY.glob("*.pkl")))
def test_a_legacy_file_rewritten_in_the_data_format_loads_equal(tmp_path: Path, name: str) -> None:
    legacy = load_trajectory(LEGACY / name)
    TrajectoryWriterFile(tmp_path).write(legacy)
    (path,) = tmp_path.glob("*.traj.npz")
    assert_same_record(legacy, load_trajectory(path))


def test_a_legacy_file_loads_within_a_tight_allocation_budget(tmp_path: Path) -> None:
    shutil.copy(LEGACY / "cartpole_state_record.pkl", tmp_path / "a.pkl")
    assert len(load_trajectory(tmp_path / "a.pkl", allocation_budget=1 << 20)) == 12
