"""The piece inventory of the Cutting-2D env and its guillotine cutting mechanics."""

from __future__ import annotations

from typing import Optional

from maze.env.examples.cutting_2d.events import InventoryEvents
from maze.env.examples.cutting_2d.maze_action import Cutting2DMazeAction
from maze.env.examples.cutting_2d.maze_state import Piece

__all__ = ["Inventory", "cut_residuals", "fits"]


def fits(ordered_piece: Piece, piece: Piece) -> bool:
    """True when ``ordered_piece`` fits into ``piece`` without rotating it."""
    return ordered_piece[0] <= piece[0] and ordered_piece[1] <= piece[1]


def cut_residuals(piece: Piece, ordered_piece: Piece, reverse_cutting_order: bool) -> list[Piece]:
    """The non-empty remainders of cutting ``ordered_piece`` out of a corner of ``piece``.

    Two guillotine cuts separate the order: the first runs across the whole piece, the
    second across the strip that holds the order. Cutting along x first leaves the
    remainders ``(W - w, H)`` and ``(w, H - h)``; cutting along y first leaves
    ``(W, H - h)`` and ``(W - w, h)``. The order must fit (see :func:`fits`).

    Args:
        piece: ``(W, H)``, the piece to cut from.
        ordered_piece: ``(w, h)``, the piece to cut out (already rotated as wanted).
        reverse_cutting_order: Make the first cut along y.

    Returns:
        The remainders with a positive area, in cutting order.
    """
    (width, height), (w, h) = piece, ordered_piece
    if reverse_cutting_order:
        residuals = [(width, height - h), (width - w, h)]
    else:
        residuals = [(width - w, height), (w, height - h)]
    return [residual for residual in residuals if residual[0] > 0 and residual[1] > 0]


class Inventory:
    """A FIFO store of pieces that fulfils orders by cutting them out of a stored piece.

    When a piece arrives while the inventory is full, the oldest piece is discarded.

    Args:
        max_pieces_in_inventory: Capacity.
        raw_piece_size: Size of a fresh raw piece.
        inventory_events: Topic proxy through which inventory events are fired (None: no events).

    Attributes:
        pieces: The stored pieces, oldest first.
    """

    def __init__(
        self, max_pieces_in_inventory: int, raw_piece_size: Piece, inventory_events: Optional[InventoryEvents] = None
    ) -> None:
        self.max_pieces_in_inventory = max_pieces_in_inventory
        self.raw_piece_size = raw_piece_size
        self.inventory_events = inventory_events
        self.pieces: list[Piece] = []

    def size(self) -> int:
        """Number of stored pieces."""
        return len(self.pieces)

    def is_full(self) -> bool:
        """True when storing another piece discards the oldest one."""
        return len(self.pieces) >= self.max_pieces_in_inventory

    def store_piece(self, piece: Piece) -> None:
        """Adds ``piece`` as the newest piece, discarding the oldest one when full."""
        if self.is_full():
            discarded = self.pieces.pop(0)
            if self.inventory_events is not None:
                self.inventory_events.piece_discarded(piece=discarded)
        self.pieces.append(piece)

    def replenish_piece(self) -> None:
        """Adds a fresh raw piece."""
        self.store_piece(self.raw_piece_size)
        if self.inventory_events is not None:
            self.inventory_events.piece_replenished()

    def cut(self, maze_action: Cutting2DMazeAction, ordered_piece: Piece) -> bool:
        """Cuts ``ordered_piece`` out of the piece ``maze_action`` selects.

        The cut piece leaves the inventory; its remainders are stored as new pieces.

        Args:
            maze_action: Which piece, the orientation of the order and the cutting order.
            ordered_piece: Size of the order (before rotation).

        Returns:
            True when the cut was made; False (inventory unchanged) when the piece does not
            exist or the order does not fit into it.
        """
        if not 0 <= maze_action.piece_id < len(self.pieces):
            return False
        if maze_action.rotate:
            ordered_piece = (ordered_piece[1], ordered_piece[0])
        piece = self.pieces[maze_action.piece_id]
        if not fits(ordered_piece, piece):
            return False
        del self.pieces[maze_action.piece_id]
        for residual in cut_residuals(piece, ordered_piece, maze_action.reverse_cutting_order):
            self.store_piece(residual)
        return True

    def log_step_statistics(self) -> None:
        """Reports the number of stored pieces (once per step)."""
        if self.inventory_events is not None:
            self.inventory_events.pieces_in_inventory(value=self.size())
