"""``python -m maze.rollout.convert``: pickle trajectories become data-only files that load equal."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from maze.env.testing.record_equality import assert_same_record
from maze.env.trajectory_recording import load_trajectory
from maze.rollout.convert import convert_trajectories

LEGACY = Path(__file__).resolve().parents[2] / "maze-env" / "tests" / "recording" / "legacy_trajectories"


def _legacy_copy(tmp_path: Path) -> Path:
    directory = tmp_path / "trajectory_data"
    directory.mkdir()
    for path in sorted(LEGACY.glob("*.pkl")):
        shutil.copy(path, directory / path.name)
    (directory / "nested").mkdir()
    shutil.copy(LEGACY / "cartpole_state_record.pkl", directory / "nested" / "again.pkl")
    return directory


def test_converted_files_load_equal_to_the_pickles(tmp_path: Path) -> None:
    directory = _legacy_copy(tmp_path)
    report = convert_trajectories([directory])
    assert report.failed == [] and len(report.converted) == 4
    for source, target in report.converted:
        assert target.name == source.name.replace(".pkl", ".traj.npz") and source.exists()
        legacy = load_trajectory(source)
        legacy.id = source.stem
        assert_same_record(legacy, load_trajectory(target))


def test_the_command_converts_deletes_originals_and_reports_failures(tmp_path: Path) -> None:
    directory = _legacy_copy(tmp_path)
    (directory / "broken.pkl").write_bytes(b"\x80\x04K")
    result = subprocess.run(
        [sys.executable, "-m", "maze.rollout.convert", str(directory), "--delete-originals"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert "Converted 4 trajectory files (originals deleted); 1 failed." in result.stdout
    assert f"Error: {directory / 'broken.pkl'}: trajectory file" in result.stderr
    assert sorted(path.name for path in directory.rglob("*.pkl")) == ["broken.pkl"]
    assert len(list(directory.rglob("*.traj.npz"))) == 4
