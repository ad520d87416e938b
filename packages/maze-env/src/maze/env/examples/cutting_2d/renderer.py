"""Draws a Cutting-2D step with matplotlib (imported only when drawing)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from maze.env.core.rendering import Renderer, import_pyplot
from maze.env.examples.cutting_2d.inventory import fits
from maze.env.examples.cutting_2d.maze_action import Cutting2DMazeAction
from maze.env.examples.cutting_2d.maze_state import Cutting2DMazeState, Piece
from maze.env.utils.allow_list import trajectory_data

__all__ = ["Cutting2DRenderer"]

_ORDER_COLOR = (0.7, 0.2, 0.2)
_PIECE_COLOR = (0.8, 0.8, 0.8)


@trajectory_data
@dataclass
class Cutting2DRenderer(Renderer):
    """Draws the figure "Cutting 2D": the cut on the left, the inventory on the right.

    Left: the piece the MazeAction picks, with the (possibly rotated) order in its corner
    and the two guillotine cuts as dashed lines. Right: every inventory piece as a point
    (short side, long side), together with the current order and the picked piece.

    On an interactive matplotlib backend each call shows the figure for ``pause`` seconds;
    on a non-interactive one (Agg, for files) it only draws.

    A dataclass, so that trajectory files store it as data (its fields).

    Attributes:
        pause: Seconds to show the figure after drawing on an interactive backend.
    """

    pause: float = 0.1

    def render(
        self, maze_state: Cutting2DMazeState, maze_action: Optional[Any], events: Any = None, **kwargs: Any
    ) -> None:
        """Draws ``maze_state`` and the action taken in it (``events`` are not used).

        Args:
            maze_state: The state the action is applied to.
            maze_action: A Cutting2DMazeAction, a Cutting2DPieceSelection (drawn without
                cuts) or None.
            events: The step's events (unused).
            **kwargs: Unused.
        """
        plt = import_pyplot()
        figure = plt.figure("Cutting 2D", figsize=(8, 4))
        figure.clf()
        piece_id = getattr(maze_action, "piece_id", None)
        piece = maze_state.piece(piece_id) if piece_id is not None else None
        _draw_cut(figure.add_subplot(121, aspect="equal"), maze_state, maze_action, piece)
        _draw_inventory(figure.add_subplot(122), maze_state, piece)
        figure.tight_layout()
        figure.canvas.draw_idle()
        if self.pause > 0 and _interactive_backend():
            plt.pause(self.pause)


def _draw_cut(axes: Any, maze_state: Cutting2DMazeState, maze_action: Any, piece: Optional[Piece]) -> None:
    """The picked piece, the order placed in its lower-left corner and the cutting lines."""
    from matplotlib.patches import Rectangle

    axes.set_xlim(0, maze_state.raw_piece_size[0])
    axes.set_ylim(0, maze_state.raw_piece_size[1])
    if piece is None:
        title = "MazeAction (none)" if maze_action is None else f"invalid piece {maze_action.piece_id}"
        axes.set_title(title, loc="left", fontweight="bold")
        return
    order = maze_state.current_demand
    cut = isinstance(maze_action, Cutting2DMazeAction)
    if cut and maze_action.rotate:
        order = (order[1], order[0])
    axes.add_patch(Rectangle((0, 0), piece[0], piece[1], facecolor=_PIECE_COLOR, edgecolor="black"))
    axes.add_patch(Rectangle((0, 0), order[0], order[1], facecolor=_ORDER_COLOR, alpha=0.8))
    if cut:
        (width, height), (w, h) = piece, order
        if maze_action.reverse_cutting_order:  # first across the height, then across the strip
            lines = [((0, width), (h, h)), ((w, w), (0, h))]
        else:  # first across the width, then across the strip
            lines = [((w, w), (0, height)), ((0, w), (h, h))]
        for xs, ys in lines:
            axes.plot(xs, ys, color="black", linestyle="--")
    title = f"cut piece {maze_action.piece_id}" if cut else f"selected piece {maze_action.piece_id}"
    if cut and not fits(order, piece):
        title += " (invalid)"
    axes.set_title(title, loc="left", fontweight="bold")


def _draw_inventory(axes: Any, maze_state: Cutting2DMazeState, piece: Optional[Piece]) -> None:
    """Inventory pieces, the current order and the picked piece as (short side, long side) points."""
    if maze_state.inventory:
        shorts, longs = zip(*(sorted(p) for p in maze_state.inventory), strict=True)
        axes.plot(shorts, longs, "ko", alpha=0.5, label="inventory pieces")
    order = sorted(maze_state.current_demand)
    axes.plot(order[0], order[1], "o", color=_ORDER_COLOR, alpha=0.75, label="current demand")
    if piece is not None:
        picked = sorted(piece)
        axes.plot(picked[0], picked[1], "bo", alpha=0.75, label="piece to cut")
    axes.grid(True)
    axes.legend(loc="lower right", fontsize="small")
    axes.set_xlabel("short side")
    axes.set_ylabel("long side")
    axes.set_title("Inventory Pieces", loc="left", fontweight="bold")


def _interactive_backend() -> bool:
    """True when matplotlib draws into windows (so pausing shows the figure)."""
    import matplotlib
    from matplotlib.backends import BackendFilter, backend_registry

    return matplotlib.get_backend().lower() in backend_registry.list_builtin(BackendFilter.INTERACTIVE)
