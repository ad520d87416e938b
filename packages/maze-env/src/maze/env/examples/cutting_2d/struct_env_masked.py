"""The structured Cutting-2D env with step-conditional action masks in its observations.

* Sub-step 0 adds ``inventory_mask`` (float32 ``(max_pieces_in_inventory,)``): 1 for every
  slot that holds a piece the current order fits into (rotated or not), else 0.
* Sub-step 1 adds ``cutting_mask`` (float32 ``(2,)``): entry 0 is 1 when the order fits
  into the selected piece as it is, entry 1 when it fits rotated.

A policy that samples only where the masks are 1 never makes an invalid selection or an
invalid cut (the cutting order is always valid).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from maze.env.examples.cutting_2d.conversions import ObservationConversion
from maze.env.examples.cutting_2d.maze_state import Cutting2DMazeState
from maze.env.examples.cutting_2d.struct_env import (
    SIMPLE_PROBLEM_DEMAND,
    SIMPLE_PROBLEM_MAX_PIECES,
    SIMPLE_PROBLEM_RAW_PIECE_SIZE,
    CuttingObservationConversion,
    StructuredCutting2DEnvironment,
    build_structured_env,
)
from maze.env.utils.factory import ConfigType
from maze.env.utils.trust import trusted_factory

__all__ = [
    "inventory_mask",
    "cutting_mask",
    "MaskedSelectionObservationConversion",
    "MaskedCuttingObservationConversion",
    "MaskedStructuredCutting2DEnvironment",
    "masked_struct_env_factory",
]


def inventory_mask(inventory: np.ndarray, inventory_size: int, ordered_piece: np.ndarray) -> np.ndarray:
    """float32 ``(max_pieces,)``: 1 where a stored piece can fulfil the order, rotated or not.

    Args:
        inventory: ``(max_pieces, 2)`` piece sizes, zero-padded.
        inventory_size: Number of stored pieces (the leading rows of ``inventory``).
        ordered_piece: ``(2,)`` size of the order.
    """
    inventory = np.asarray(inventory)
    mask = np.zeros(len(inventory), dtype=np.float32)
    order = np.sort(np.asarray(ordered_piece))
    mask[:inventory_size] = np.all(np.sort(inventory[:inventory_size], axis=1) >= order, axis=1)
    return mask


def cutting_mask(selected_piece: np.ndarray, ordered_piece: np.ndarray) -> np.ndarray:
    """float32 ``(2,)``: [order fits unrotated, order fits rotated] into ``selected_piece``.

    An empty slot (size ``(0, 0)``) gives ``[0, 0]``.
    """
    piece, order = np.asarray(selected_piece), np.asarray(ordered_piece)
    return np.array([np.all(order <= piece), np.all(order[::-1] <= piece)], dtype=np.float32)


def _mask_space(size: int) -> spaces.Box:
    return spaces.Box(low=0.0, high=1.0, shape=(size,), dtype=np.float32)


class MaskedSelectionObservationConversion(ObservationConversion):
    """The flat observation plus ``inventory_mask``."""

    def maze_to_space(self, maze_state: Cutting2DMazeState) -> dict[str, np.ndarray]:
        """The flat observation with the inventory mask."""
        observation = super().maze_to_space(maze_state)
        observation["inventory_mask"] = inventory_mask(
            observation["inventory"], len(maze_state.inventory), observation["ordered_piece"]
        )
        return observation

    def space(self) -> spaces.Dict:
        """The flat space plus the mask."""
        return spaces.Dict({**super().space().spaces, "inventory_mask": _mask_space(self.max_pieces_in_inventory)})


class MaskedCuttingObservationConversion(CuttingObservationConversion):
    """The cutting observation plus ``cutting_mask``."""

    def maze_to_space(self, maze_state: Cutting2DMazeState) -> dict[str, np.ndarray]:
        """The cutting observation with the rotation mask."""
        observation = super().maze_to_space(maze_state)
        observation["cutting_mask"] = cutting_mask(observation["selected_piece"], observation["ordered_piece"])
        return observation

    def space(self) -> spaces.Dict:
        """The cutting space plus the mask."""
        return spaces.Dict({**super().space().spaces, "cutting_mask": _mask_space(2)})


class MaskedStructuredCutting2DEnvironment(StructuredCutting2DEnvironment):
    """:class:`StructuredCutting2DEnvironment` whose observations carry the action masks."""

    selection_observation_conversion = MaskedSelectionObservationConversion
    cutting_observation_conversion = MaskedCuttingObservationConversion


@trusted_factory
def masked_struct_env_factory(
    max_pieces_in_inventory: int = SIMPLE_PROBLEM_MAX_PIECES,
    raw_piece_size: Sequence[int] = SIMPLE_PROBLEM_RAW_PIECE_SIZE,
    static_demand: Any = SIMPLE_PROBLEM_DEMAND,
    reward_aggregator: Optional[ConfigType] = None,
) -> MaskedStructuredCutting2DEnvironment:
    """Builds the masked structured env; arguments and defaults as for ``struct_env_factory``."""
    return build_structured_env(
        MaskedStructuredCutting2DEnvironment, max_pieces_in_inventory, raw_piece_size, static_demand, reward_aggregator
    )
