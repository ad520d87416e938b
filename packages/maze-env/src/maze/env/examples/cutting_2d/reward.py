"""The event-based reward of the Cutting-2D env."""

from __future__ import annotations

from typing import Any, Optional

from maze.env.core.reward import RewardAggregatorInterface
from maze.env.examples.cutting_2d.events import CuttingEvents, InventoryEvents

__all__ = ["DefaultRewardAggregator"]


class DefaultRewardAggregator(RewardAggregatorInterface):
    """Penalises raw-piece usage and invalid actions, computed from the step's events.

    The reward of a step is the sum of ``raw_piece_usage_penalty`` per
    ``InventoryEvents.piece_replenished`` and ``invalid_action_penalty`` per
    ``CuttingEvents.invalid_cut`` or ``CuttingEvents.invalid_piece_selected``.

    With ``(-2, -1)`` it reproduces the hard-coded reward of
    :class:`~maze.env.examples.cutting_2d.core_env.Cutting2DCoreEnvironment` step for step.

    Args:
        invalid_action_penalty: Reward for an invalid cut or an invalid piece selection.
        raw_piece_usage_penalty: Reward for every raw piece that had to be replenished.
    """

    def __init__(self, invalid_action_penalty: float = -2.0, raw_piece_usage_penalty: float = -1.0) -> None:
        super().__init__()
        self.invalid_action_penalty = invalid_action_penalty
        self.raw_piece_usage_penalty = raw_piece_usage_penalty

    def get_interfaces(self) -> list[type]:
        """Listens to cutting and inventory events."""
        return [CuttingEvents, InventoryEvents]

    def summarize_reward(self, maze_state: Optional[Any] = None) -> float:
        """The reward of the step whose events were delivered since the last ``pre_step``."""
        replenishments = sum(1 for _ in self.query_events(InventoryEvents.piece_replenished))
        invalid_actions = sum(
            1 for _ in self.query_events((CuttingEvents.invalid_cut, CuttingEvents.invalid_piece_selected))
        )
        return float(replenishments * self.raw_piece_usage_penalty + invalid_actions * self.invalid_action_penalty)
