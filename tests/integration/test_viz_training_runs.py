"""maze-viz on real maze-run outputs: recorded rollouts in the viewers, TensorBoard histograms and images of
training runs, read back with tensorboard_to_pandas and compared.

Two tiny PPO runs on CartPole-v1 with the monitoring wrapper logging actions and
observations; the second one with TensorBoard figures switched off.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import EVAL_REWARD_MEAN, SHORT_EPOCHS, TrainingRun, assert_success, cartpole, maze_run, seeds
from matplotlib.image import imread
from maze.viz import (
    KeyboardControlledTrajectoryViewer,
    NotebookTrajectoryViewer,
    plot_run_comparison,
    tensorboard_to_pandas,
    trajectory_files,
)
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

MONITORED = (
    "wrappers=vector_obs",
    "wrappers.MazeEnvMonitoringWrapper.observation_logging=true",
    "runner=dev",
    "runner.normalization_samples=200",
    "algorithm.n_epochs=2",
    *SHORT_EPOCHS,
    "algorithm.rollout_evaluator.n_episodes=2",
)
ACTION_TAG = "DiscreteActionEvents/action/substep_0/action"
OBSERVATION_TAGS = (
    "ObservationEvents/observation_original/substep_0/observation",
    "ObservationEvents/observation_processed/substep_0/observation",
)


@pytest.fixture(scope="module")
def monitored_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[TrainingRun, TrainingRun]:
    runs = []
    for seed, extra in ((0, ()), (1, ("tensorboard_figures=false",))):
        run_dir = tmp_path_factory.mktemp(f"monitored_{seed}") / "run"
        result = maze_run(*cartpole(), *MONITORED, *seeds(seed), *extra, run_dir=run_dir)
        assert_success(result)
        runs.append(TrainingRun(run_dir, result))
    return runs[0], runs[1]


def accumulator(run_dir: Path) -> EventAccumulator:
    loaded = EventAccumulator(str(run_dir), size_guidance={"images": 0, "histograms": 0})
    loaded.Reload()
    return loaded


def test_training_run_holds_action_and_observation_histograms_and_action_images(monitored_runs) -> None:
    with_figures, without_figures = monitored_runs
    events = accumulator(with_figures.run_dir)
    for prefix in ("train", "eval"):
        for tag in (ACTION_TAG, *OBSERVATION_TAGS):
            histograms = events.Histograms(f"{prefix}_{tag}")
            assert [event.step for event in histograms] == [1, 2]
            assert all(event.histogram_value.num > 0 for event in histograms)
    actions = events.Histograms(f"train_{ACTION_TAG}")[0].histogram_value
    assert (actions.min, actions.max) == (0.0, 1.0)  # CartPole's two actions

    assert sorted(events.Tags()["images"]) == [f"eval_{ACTION_TAG}/plot", f"train_{ACTION_TAG}/plot"]
    image = events.Images(f"train_{ACTION_TAG}/plot")[-1]
    pixels = imread(io.BytesIO(image.encoded_image_string))
    assert pixels.shape[:2] == (image.height, image.width) and pixels.std() > 0.05
    assert accumulator(without_figures.run_dir).Tags()["images"] == []


def test_tensorboard_to_pandas_reads_the_train_and_eval_rewards_of_a_run(monitored_runs) -> None:
    frame = tensorboard_to_pandas(monitored_runs[0].run_dir)
    tags = set(frame.index.get_level_values("tag"))
    assert {"train_BaseEnvEvents/reward/mean", EVAL_REWARD_MEAN} <= tags
    assert frame.loc[EVAL_REWARD_MEAN].index.tolist() == [1, 2]
    assert frame.loc["train_BaseEnvEvents/reward/mean"]["value"].notna().all()


def test_comparison_plot_of_two_runs_has_two_labelled_curves_and_the_cli_writes_a_png(monitored_runs, tmp_path) -> None:
    run_dirs = [run.run_dir for run in monitored_runs]
    figure = plot_run_comparison(run_dirs, labels=["seed 0", "seed 1"])
    lines = figure.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["seed 0", "seed 1"]
    for line, run_dir in zip(lines, run_dirs, strict=True):
        expected = tensorboard_to_pandas(run_dir).loc[EVAL_REWARD_MEAN]["value"].tolist()
        assert list(line.get_ydata()) == pytest.approx(expected)

    out = tmp_path / "comparison.png"
    cli = Path(sys.executable).parent / "maze-compare-runs"
    result = subprocess.run([str(cli), *map(str, run_dirs), "--out", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert imread(out).std() > 0.05

    empty = tmp_path / "not_a_run"
    empty.mkdir()
    result = subprocess.run([str(cli), str(empty)], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"Error: no TensorBoard event files (events.out.tfevents.*) in {empty}; pass the output directory of a "
        "training run (maze-run -cn conf_train ... writes them there)"
    ]


def test_a_recorded_greedy_cutting_rollout_opens_in_the_viewers(tmp_path: Path) -> None:
    run_dir = tmp_path / "rollout"
    result = maze_run(
        "env=tutorial_cutting_2d_struct_masked",
        "policy=tutorial_cutting_2d_greedy_policy",
        "runner=sequential",
        "runner.n_episodes=1",
        "runner.max_episode_steps=8",
        run_dir=run_dir,
    )
    assert_success(result)
    (episode_file,) = trajectory_files(run_dir / "trajectory_data")
    viewer = NotebookTrajectoryViewer(episode_file)
    viewer.build()
    assert (viewer.slider.min, viewer.slider.max) == (0, 15)  # 8 env steps of two sub-steps (select, then cut)
    viewer.slider.value = 14
    assert "step 14 of 15" in viewer.details.value and "Cutting2DPieceSelection" in viewer.details.value
    viewer.next_button.click()
    assert "step 15 of 15" in viewer.details.value and "Cutting2DMazeAction" in viewer.details.value
    keyboard = KeyboardControlledTrajectoryViewer(episode_file)
    figure = keyboard.render(3)
    assert [axes.get_title(loc="left") for axes in figure.axes][1] == "Inventory Pieces"
