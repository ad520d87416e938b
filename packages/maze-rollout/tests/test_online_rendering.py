"""Online rendering of sequential rollouts: image frames, Maze renderers, missing renderers and libraries."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gymnasium.error import DependencyNotInstalled
from maze.env.core.rendering import import_pyplot
from maze.env.errors import ConfigurationError
from maze.env.examples.cutting_2d.policies import Cutting2DGreedyPolicy
from maze.env.examples.cutting_2d.renderer import Cutting2DRenderer
from maze.env.testing.fake_envs import build_dummy_maze_env
from maze.rollout import SequentialRolloutRunner
from maze.rollout.online_rendering import FRAME_FIGURE
from rollout_support import RANDOM_POLICY, FrameEnv, make_frame_env

FRAME_ENV = {"_target_": "rollout_support.make_frame_env", "name": "frames", "render_mode": None, "length": 3}


@pytest.fixture
def pyplot():
    """matplotlib.pyplot on the Agg backend (headless); figures are closed afterwards."""
    pytest.importorskip("matplotlib").use("Agg")
    plt = import_pyplot()
    yield plt
    plt.close("all")


def renderer(render: bool = True, n_episodes: int = 1) -> SequentialRolloutRunner:
    return SequentialRolloutRunner(
        n_episodes=n_episodes, max_episode_steps=0, record_trajectory=False, record_event_logs=False, render=render
    )


def test_render_mode_null_becomes_rgb_array_and_every_frame_is_shown(
    run_dir: Path, pyplot, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames: list[int] = []
    original = FrameEnv.render
    monkeypatch.setattr(FrameEnv, "render", lambda self: frames.append(self.steps) or original(self))
    renderer(n_episodes=2).run_with(FRAME_ENV, None, RANDOM_POLICY)
    assert frames == [1, 2, 3, 1, 2, 3]
    (image,) = pyplot.figure(FRAME_FIGURE).axes[0].images
    np.testing.assert_array_equal(image.get_array(), np.full((4, 6, 3), 3, np.uint8))


def test_without_render_nothing_is_drawn_and_the_config_is_kept(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FrameEnv, "render", lambda self: pytest.fail("rendered without render=true"))
    runner = renderer(render=False)
    assert runner.prepare_env_config(FRAME_ENV) is FRAME_ENV
    runner.run_with(FRAME_ENV, None, RANDOM_POLICY)
    assert renderer(render=True).prepare_env_config({**FRAME_ENV, "render_mode": "human"})["render_mode"] == "human"


def test_a_gym_env_made_without_render_mode_is_reported(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    renderer().run_with(make_frame_env(render_mode=None), None, RANDOM_POLICY)
    assert "the gymnasium env was made without a render mode, so nothing is drawn" in capsys.readouterr().out


def test_a_missing_drawing_library_turns_drawing_off_with_one_line(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    calls: list[int] = []

    def missing_pygame(self: FrameEnv) -> None:
        calls.append(self.steps)
        raise DependencyNotInstalled('pygame is not installed, run `pip install "gymnasium[classic-control]"`')

    monkeypatch.setattr(FrameEnv, "render", missing_pygame)
    mean = renderer(n_episodes=2).run_with(FRAME_ENV, None, RANDOM_POLICY)
    assert mean == 3.0 and calls == [1]
    output = capsys.readouterr().out
    assert output.count("cannot draw this env (pygame is not installed") == 1


def test_maze_renderers_draw_the_state_and_action_of_every_step(
    run_dir: Path, pyplot, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[tuple] = []
    original = Cutting2DRenderer.render

    def spy(self, maze_state, maze_action, events=None, **kwargs) -> None:
        drawn.append((maze_state, maze_action, events))
        original(self, maze_state, maze_action, events)

    monkeypatch.setattr(Cutting2DRenderer, "render", spy)
    env = {"_target_": "maze.env.examples.cutting_2d.struct_env_masked.masked_struct_env_factory"}
    runner = SequentialRolloutRunner(n_episodes=1, max_episode_steps=2, record_trajectory=False, render=True)
    runner.run_with(env, None, Cutting2DGreedyPolicy())
    assert len(drawn) == 4  # two env steps of two sub-steps each
    assert all(state is not None and action is not None for state, action, _ in drawn)
    assert [events.env_time for _, _, events in drawn] == [0, 0, 1, 1]
    assert len(pyplot.figure("Cutting 2D").axes) == 2


def test_an_env_without_renderer_gives_a_clear_error(run_dir: Path) -> None:
    with pytest.raises(ConfigurationError, match="has no renderer; set runner.render=false"):
        renderer().run_with(build_dummy_maze_env(), None, RANDOM_POLICY)
