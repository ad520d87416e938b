"""Recorded Cutting-2D episodes and a renderer that records its calls, for the viewer tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import matplotlib
import pytest
from maze.env.core.renderer_args import IntRangeArg, OptionsArrayArg
from maze.env.core.rendering import Renderer
from maze.env.examples.cutting_2d import FlatCutting2DGreedyPolicy, maze_env_factory
from maze.env.trajectory_recording import SimpleTrajectoryRecordingSetup, StateTrajectoryRecord
from maze.env.utils.library_output import show_library_output
from maze.env.wrappers import LogStatsWrapper, TrajectoryRecordingWrapper

show_library_output(force=True)  # maze's library lines on stdout, as maze-run shows them (tests read them there)

matplotlib.use("Agg")

EPISODE_STEPS = 12


def record_greedy_episodes(directory: Path, episodes: int = 1, steps: int = EPISODE_STEPS) -> list[Path]:
    """Records ``episodes`` greedy Cutting-2D episodes of ``steps`` steps into ``directory``; returns the files."""
    env = TrajectoryRecordingWrapper(
        LogStatsWrapper(maze_env_factory(max_pieces_in_inventory=20, raw_piece_size=(100, 100), static_demand=(30, 15)))
    )
    policy = FlatCutting2DGreedyPolicy()
    with SimpleTrajectoryRecordingSetup(directory):
        for seed in range(episodes):
            observation, _ = env.reset(seed=seed)
            for _ in range(steps):
                observation, *_ = env.step(policy.compute_action(observation))
            env.flush()
        env.close()
    return sorted(directory.glob("*.traj.npz"))


@pytest.fixture(scope="session")
def episode_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One recorded greedy Cutting-2D episode of :data:`EPISODE_STEPS` steps."""
    (path,) = record_greedy_episodes(tmp_path_factory.mktemp("trajectory_data"))
    return path


class RecordingRenderer(Renderer):
    """Draws a title naming the step's state and records every call (state, action, events, kwargs)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def render(self, maze_state: Any, maze_action: Optional[Any], events: Any, **kwargs: Any) -> None:
        import matplotlib.pyplot as plt

        self.calls.append({"state": maze_state, "action": maze_action, "events": events, "kwargs": kwargs})
        figure = plt.figure("recording renderer")
        figure.clf()
        axes = figure.add_subplot()
        axes.plot([0, 1, 2], [kwargs.get("zoom", 1), 2, 0])
        axes.set_title(f"inventory {len(maze_state.inventory)} / {kwargs.get('colour', '-')}")

    def get_renderer_args(self) -> list:
        return [IntRangeArg("zoom", "zoom", 1, 4), OptionsArrayArg("colour", "colour", ["red", "green", "blue"])]


def record_with(record: StateTrajectoryRecord, renderer: Renderer) -> StateTrajectoryRecord:
    """The record with another renderer."""
    return StateTrajectoryRecord(id=record.id, step_records=record.step_records, renderer=renderer)
