"""The MazeActions of the Cutting-2D env."""

from __future__ import annotations

from dataclasses import dataclass

from maze.env.utils.allow_list import trajectory_data

__all__ = ["Cutting2DMazeAction", "Cutting2DPieceSelection"]


@trajectory_data
@dataclass(frozen=True)
class Cutting2DMazeAction:
    """Cut the current order out of one inventory piece.

    Attributes:
        piece_id: Index of the inventory piece to cut from.
        rotate: Rotate the ordered piece by 90 degrees (swap its x and y size) before cutting.
        reverse_cutting_order: Make the first guillotine cut along the y axis (across the
            height) instead of along the x axis.
    """

    piece_id: int
    rotate: bool
    reverse_cutting_order: bool


@trajectory_data
@dataclass(frozen=True)
class Cutting2DPieceSelection:
    """The first sub-step of the structured env: pick the inventory piece to cut from.

    Attributes:
        piece_id: Index of the inventory piece to cut from in the next sub-step.
    """

    piece_id: int
