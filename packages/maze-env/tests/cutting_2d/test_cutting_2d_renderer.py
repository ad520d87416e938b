"""The Cutting-2D renderer draws its two-panel figure (matplotlib, Agg backend)."""

from __future__ import annotations

import pytest
from maze.env.examples.cutting_2d import (
    Cutting2DMazeAction,
    Cutting2DPieceSelection,
    Cutting2DRenderer,
    maze_env_factory,
)

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


@pytest.mark.parametrize(
    "maze_action",
    [
        Cutting2DMazeAction(0, False, False),
        Cutting2DMazeAction(0, True, True),
        Cutting2DMazeAction(7, False, False),
        Cutting2DPieceSelection(0),
        None,
    ],
    ids=["cut", "rotated_y_first", "empty_slot", "selection", "no_action"],
)
def test_render_draws_two_axes(maze_action) -> None:
    env = maze_env_factory(max_pieces_in_inventory=10, raw_piece_size=(100, 100), static_demand=(30, 15))
    env.reset(seed=0)
    renderer = env.get_renderer()
    assert isinstance(renderer, Cutting2DRenderer)
    renderer.render(env.get_maze_state(), maze_action, None)
    figure = plt.gcf()
    assert figure.get_label() == "Cutting 2D" and len(figure.axes) == 2
    assert figure.axes[1].get_title(loc="left") == "Inventory Pieces"
    plt.close("all")


def test_env_render_uses_the_last_state_and_action() -> None:
    env = maze_env_factory(max_pieces_in_inventory=10, raw_piece_size=(100, 100), static_demand=(30, 15))
    env.reset(seed=0)
    env.step({"piece_idx": 0, "cut_rotation": 0, "cut_order": 0})
    env.render()
    assert len(plt.gcf().axes) == 2
    assert plt.gcf().axes[0].get_title(loc="left") == "cut piece 0"
    plt.close("all")
