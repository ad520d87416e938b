"""Notebook and keyboard trajectory viewers driven programmatically, and their bad-input messages."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from conftest import EPISODE_STEPS, RecordingRenderer, record_with
from matplotlib.backend_bases import KeyEvent
from matplotlib.image import imread
from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording import StateTrajectoryRecord, TrajectoryLoadError
from maze.viz import (
    KeyboardControlledTrajectoryViewer,
    NotebookTrajectoryViewer,
    load_state_trajectory,
    trajectory_files,
)


@pytest.fixture
def recorded(episode_file: Path) -> tuple[StateTrajectoryRecord, RecordingRenderer]:
    renderer = RecordingRenderer()
    return record_with(load_state_trajectory(episode_file), renderer), renderer


def assert_drew_step(renderer: RecordingRenderer, record: StateTrajectoryRecord, step: int, **kwargs: object) -> None:
    call = renderer.calls[-1]
    expected = record.step_records[step]
    assert call["state"] is expected.maze_state
    assert call["action"] is expected.maze_action
    assert call["events"] is expected.step_event_log
    assert call["kwargs"] == kwargs


def test_notebook_viewer_slider_spans_the_episode_and_draws_the_chosen_step(recorded) -> None:
    record, renderer = recorded
    viewer = NotebookTrajectoryViewer(record)
    viewer.build()
    assert (viewer.slider.min, viewer.slider.max) == (0, EPISODE_STEPS - 1)
    assert_drew_step(renderer, record, 0, zoom=1, colour="red")

    viewer.slider.value = 7
    assert_drew_step(renderer, record, 7, zoom=1, colour="red")
    assert "step 7 of 11" in viewer.details.value
    assert "CuttingEvents.valid_cut" in viewer.details.value

    viewer.arg_widgets["zoom"].value = 3
    viewer.arg_widgets["colour"].value = "blue"
    assert_drew_step(renderer, record, 7, zoom=3, colour="blue")
    assert viewer.arg_widgets["colour"].label == "blue"
    assert [value for _, value in viewer.arg_widgets["colour"].options] == ["red", "green", "blue"]
    assert (viewer.arg_widgets["zoom"].min, viewer.arg_widgets["zoom"].max) == (1, 4)

    viewer.next_button.click()
    assert_drew_step(renderer, record, 8, zoom=3, colour="blue")
    viewer.slider.value = EPISODE_STEPS - 1
    viewer.next_button.click()  # stays on the last step
    viewer.previous_button.click()
    assert_drew_step(renderer, record, EPISODE_STEPS - 2, zoom=3, colour="blue")
    assert viewer.play.max == EPISODE_STEPS - 1


def test_notebook_viewer_loads_a_trajectory_file_and_uses_its_recorded_renderer(episode_file: Path) -> None:
    viewer = NotebookTrajectoryViewer(episode_file)
    viewer.build()
    assert type(viewer.renderer).__name__ == "Cutting2DRenderer"
    assert viewer.slider.max == EPISODE_STEPS - 1
    plt.close("all")


def test_keyboard_viewer_moves_with_arrow_keys_and_draws_a_titled_png(recorded, tmp_path: Path) -> None:
    record, renderer = recorded
    viewer = KeyboardControlledTrajectoryViewer(record, renderer_args={"zoom": 2})
    figure = viewer.render(0)

    def press(key: str) -> None:
        figure.canvas.callbacks.process("key_press_event", KeyEvent("key_press_event", figure.canvas, key))

    for key, expected in [("right", 1), ("right", 2), ("left", 1), ("end", 11), ("right", 11), ("home", 0)]:
        press(key)
        assert viewer.index == expected, key
        assert_drew_step(renderer, record, expected, zoom=2, colour="red")
    press("pageup")
    assert viewer.index == 10
    calls = len(renderer.calls)
    press("x")  # not a browsing key
    assert len(renderer.calls) == calls

    out = tmp_path / "keyboard.png"
    viewer.figure.savefig(out)
    pixels = imread(out)
    assert pixels.std() > 0.05  # not blank
    assert viewer.figure._suptitle.get_text().startswith("step 10 of 11")
    assert viewer.figure.axes[0].get_title().startswith("inventory ")
    plt.close("all")


def test_keyboard_viewer_rejects_renderer_arguments_out_of_range(recorded) -> None:
    record, _ = recorded
    with pytest.raises(ValueError, match="'zoom' got 9; allowed are integers from 1 to 4"):
        KeyboardControlledTrajectoryViewer(record, renderer_args={"zoom": 9})


def test_bad_trajectory_inputs_give_one_clear_message(tmp_path: Path, episode_file: Path) -> None:
    not_a_trajectory = tmp_path / "dict.pkl"
    not_a_trajectory.write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(TrajectoryLoadError, match="holds a builtins.dict, not a StateTrajectoryRecord"):
        NotebookTrajectoryViewer(not_a_trajectory)
    corrupt = tmp_path / "corrupt.pkl"
    corrupt.write_bytes(episode_file.read_bytes()[:200])
    with pytest.raises(TrajectoryLoadError, match="truncated or corrupt"):
        KeyboardControlledTrajectoryViewer(corrupt)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(TrajectoryLoadError, match="cannot be loaded"):
        load_state_trajectory(text)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(TrajectoryLoadError, match="no trajectory files"):
        trajectory_files(empty)
    with pytest.raises(TrajectoryLoadError, match="is a directory; pass one of its trajectory files"):
        NotebookTrajectoryViewer(episode_file.parent)
    with pytest.raises(TrajectoryLoadError, match="has no steps"):
        NotebookTrajectoryViewer(StateTrajectoryRecord(id="empty", renderer=RecordingRenderer()))


def test_episodes_without_a_replay_renderer_say_what_to_do(episode_file: Path) -> None:
    record = record_with(load_state_trajectory(episode_file), None)  # e.g. a plain gymnasium env
    with pytest.raises(ConfigurationError, match=r"runner=sequential runner.render=true"):
        NotebookTrajectoryViewer(record)
    viewer = NotebookTrajectoryViewer(record, renderer=RecordingRenderer())  # a renderer given explicitly
    assert viewer.record is record


def test_missing_notebook_extra_is_named(recorded, monkeypatch: pytest.MonkeyPatch) -> None:
    record, _ = recorded
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    with pytest.raises(ImportError, match=r"pip install .*packages/maze-viz\[notebook\]"):
        NotebookTrajectoryViewer(record).build()


def test_trajectory_files_lists_recorded_episodes_sorted(episode_file: Path) -> None:
    files = trajectory_files(episode_file.parent)
    assert files == sorted(files) and episode_file in files
    assert np.all([path.name.endswith(".traj.npz") for path in files])
