"""Dict observation and action conversions of the flat Cutting-2D MazeEnv."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from maze.env.core.conversion import ActionConversionInterface, ObservationConversionInterface
from maze.env.examples.cutting_2d.maze_action import Cutting2DMazeAction
from maze.env.examples.cutting_2d.maze_state import Cutting2DMazeState

__all__ = ["ObservationConversion", "ActionConversion", "inventory_array", "ordered_piece_space"]


def inventory_array(maze_state: Cutting2DMazeState, max_pieces_in_inventory: int) -> np.ndarray:
    """The inventory as a zero-padded float32 array of shape ``(max_pieces_in_inventory, 2)``."""
    array = np.zeros((max_pieces_in_inventory, 2), dtype=np.float32)
    if maze_state.inventory:
        array[: len(maze_state.inventory)] = maze_state.inventory
    return array


class ObservationConversion(ObservationConversionInterface):
    """MazeState -> ``{"inventory", "inventory_size", "ordered_piece"}``.

    * ``inventory``: float32 ``(max_pieces_in_inventory, 2)``, the piece sizes, oldest first,
      zero rows for empty slots;
    * ``inventory_size``: float32 ``(1,)``, the number of stored pieces;
    * ``ordered_piece``: float32 ``(2,)``, the size of the current order.

    Args:
        raw_piece_size: Size of a raw piece (bounds the piece sizes).
        max_pieces_in_inventory: Inventory capacity.
    """

    def __init__(self, raw_piece_size: Sequence[int], max_pieces_in_inventory: int) -> None:
        self.raw_piece_size = (int(raw_piece_size[0]), int(raw_piece_size[1]))
        self.max_pieces_in_inventory = int(max_pieces_in_inventory)

    def maze_to_space(self, maze_state: Cutting2DMazeState) -> dict[str, np.ndarray]:
        """The observation of ``maze_state`` (the state is not modified)."""
        return {
            "inventory": inventory_array(maze_state, self.max_pieces_in_inventory),
            "inventory_size": np.array([len(maze_state.inventory)], dtype=np.float32),
            "ordered_piece": np.asarray(maze_state.current_demand, dtype=np.float32),
        }

    def space_to_maze(self, observation: dict[str, np.ndarray]) -> Cutting2DMazeState:
        """Rebuilds the MazeState from an observation (inverse of :meth:`maze_to_space`)."""
        size = int(np.asarray(observation["inventory_size"]).item())
        inventory = [(int(x), int(y)) for x, y in np.asarray(observation["inventory"])[:size]]
        x, y = np.asarray(observation["ordered_piece"]).astype(int)
        return Cutting2DMazeState(inventory, self.max_pieces_in_inventory, (int(x), int(y)), self.raw_piece_size)

    def space(self) -> spaces.Dict:
        """The observation space (bounds: raw size + 1 for sizes, capacity + 1 for the count)."""
        piece_high = np.array([self.raw_piece_size[0] + 1, self.raw_piece_size[1] + 1], dtype=np.float32)
        return spaces.Dict(
            {
                "inventory": spaces.Box(
                    low=np.zeros((self.max_pieces_in_inventory, 2), dtype=np.float32),
                    high=np.tile(piece_high, (self.max_pieces_in_inventory, 1)),
                    dtype=np.float32,
                ),
                "inventory_size": spaces.Box(
                    low=0.0, high=float(self.max_pieces_in_inventory + 1), shape=(1,), dtype=np.float32
                ),
                "ordered_piece": ordered_piece_space(self.raw_piece_size),
            }
        )


def ordered_piece_space(raw_piece_size: tuple[int, int]) -> spaces.Box:
    """Space of an order's size: each side between 0 and the raw piece's long side + 1."""
    return spaces.Box(low=0.0, high=float(max(raw_piece_size) + 1), shape=(2,), dtype=np.float32)


class ActionConversion(ActionConversionInterface):
    """``{"piece_idx", "cut_rotation", "cut_order"}`` <-> :class:`Cutting2DMazeAction`.

    * ``piece_idx``: Discrete(max_pieces_in_inventory), the inventory slot to cut from;
    * ``cut_rotation``: Discrete(2), 1 rotates the order;
    * ``cut_order``: Discrete(2), 1 makes the first cut along y.

    Args:
        max_pieces_in_inventory: Inventory capacity.
    """

    def __init__(self, max_pieces_in_inventory: int) -> None:
        self.max_pieces_in_inventory = int(max_pieces_in_inventory)

    def space_to_maze(self, action: dict[str, Any], maze_state: Any) -> Cutting2DMazeAction:
        """The MazeAction of ``action``."""
        return Cutting2DMazeAction(
            piece_id=int(action["piece_idx"]),
            rotate=bool(action["cut_rotation"]),
            reverse_cutting_order=bool(action["cut_order"]),
        )

    def maze_to_space(self, maze_action: Cutting2DMazeAction) -> dict[str, int]:
        """The action of ``maze_action``."""
        return {
            "piece_idx": int(maze_action.piece_id),
            "cut_rotation": int(maze_action.rotate),
            "cut_order": int(maze_action.reverse_cutting_order),
        }

    def space(self) -> spaces.Dict:
        """The action space."""
        return spaces.Dict(
            {
                "piece_idx": spaces.Discrete(self.max_pieces_in_inventory),
                "cut_rotation": spaces.Discrete(2),
                "cut_order": spaces.Discrete(2),
            }
        )
