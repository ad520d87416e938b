"""The flat Cutting-2D MazeEnv: one joint action (piece, rotation, cutting order) per step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from maze.env.core.maze_env import MazeEnv
from maze.env.core.simulation import SimulatedMazeEnv
from maze.env.examples.cutting_2d.conversions import ActionConversion, ObservationConversion
from maze.env.examples.cutting_2d.core_env import Cutting2DCoreEnvironment
from maze.env.examples.cutting_2d.reward import DefaultRewardAggregator
from maze.env.utils.factory import ConfigType
from maze.env.utils.trust import trusted_factory

__all__ = ["Cutting2DEnvironment", "maze_env_factory"]


class Cutting2DEnvironment(SimulatedMazeEnv, MazeEnv[Cutting2DCoreEnvironment]):
    """The Cutting-2D core env with dict observations and actions (see :mod:`.conversions`); a simulation env.

    Args:
        core_env: The simulation.
        action_conversion: Defaults to :class:`ActionConversion` for the core env's capacity.
        observation_conversion: Defaults to :class:`ObservationConversion` for the core env.
    """

    def __init__(
        self,
        core_env: Cutting2DCoreEnvironment,
        action_conversion: Optional[ActionConversion] = None,
        observation_conversion: Optional[ObservationConversion] = None,
    ) -> None:
        if action_conversion is None:
            action_conversion = ActionConversion(core_env.max_pieces_in_inventory)
        if observation_conversion is None:
            observation_conversion = ObservationConversion(core_env.raw_piece_size, core_env.max_pieces_in_inventory)
        super().__init__(
            core_env=core_env,
            action_conversion_dict={0: action_conversion},
            observation_conversion_dict={0: observation_conversion},
        )


@trusted_factory
def maze_env_factory(
    max_pieces_in_inventory: int,
    raw_piece_size: Sequence[int],
    static_demand: Any,
    reward_aggregator: Optional[ConfigType] = None,
) -> Cutting2DEnvironment:
    """Builds the trainable flat env (arguments as for :class:`Cutting2DCoreEnvironment`).

    Args:
        max_pieces_in_inventory: Inventory capacity.
        raw_piece_size: ``(x, y)`` size of a raw piece.
        static_demand: One ``(x, y)`` order, or a list of orders issued in turn.
        reward_aggregator: Instance or config; defaults to
            ``DefaultRewardAggregator(invalid_action_penalty=-2, raw_piece_usage_penalty=-1)``.
    """
    if reward_aggregator is None:
        reward_aggregator = DefaultRewardAggregator(invalid_action_penalty=-2, raw_piece_usage_penalty=-1)
    core_env = Cutting2DCoreEnvironment(
        max_pieces_in_inventory=max_pieces_in_inventory,
        raw_piece_size=raw_piece_size,
        static_demand=static_demand,
        reward_aggregator=reward_aggregator,
    )
    return Cutting2DEnvironment(core_env)
