"""The MazeState of the Cutting-2D env."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from maze.env.utils.allow_list import trajectory_data

__all__ = ["Piece", "Cutting2DMazeState"]

Piece = tuple[int, int]
"""The (x, y) size of a rectangular piece."""


@trajectory_data
@dataclass
class Cutting2DMazeState:
    """A snapshot of the env: inventory, pending order and (structured env) the picked piece.

    The inventory list is copied on construction, so a state never changes when the env
    goes on.

    Attributes:
        inventory: Sizes of the pieces in inventory, oldest first.
        max_pieces_in_inventory: Capacity of the inventory.
        current_demand: Size of the order to fulfil in the next step.
        raw_piece_size: Size of a fresh raw piece.
        selected_piece_id: Piece picked in the selection sub-step of the structured env,
            while the cutting sub-step is pending; None otherwise.
    """

    inventory: list[Piece]
    max_pieces_in_inventory: int
    current_demand: Piece
    raw_piece_size: Piece
    selected_piece_id: Optional[int] = None

    def __post_init__(self) -> None:
        self.inventory = list(self.inventory)

    def piece(self, piece_id: int) -> Optional[Piece]:
        """The size of inventory piece ``piece_id``, or None when there is no such piece."""
        return self.inventory[piece_id] if 0 <= piece_id < len(self.inventory) else None
