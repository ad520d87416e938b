"""The Cutting-2D simulation: online 2D guillotine cutting stock with a FIFO inventory."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral
from typing import Any, Optional

import numpy as np
from maze.env.core.core_env import CoreEnv
from maze.env.core.events import Pubsub
from maze.env.core.mixins import SimulatedEnvMixin
from maze.env.core.reward import RewardAggregatorInterface
from maze.env.errors import ConfigurationError
from maze.env.examples.cutting_2d.events import CuttingEvents, InventoryEvents
from maze.env.examples.cutting_2d.inventory import Inventory
from maze.env.examples.cutting_2d.kpi_calculator import Cutting2dKpiCalculator
from maze.env.examples.cutting_2d.maze_action import Cutting2DMazeAction
from maze.env.examples.cutting_2d.maze_state import Cutting2DMazeState, Piece
from maze.env.examples.cutting_2d.renderer import Cutting2DRenderer
from maze.env.utils.factory import ConfigType, Factory, to_plain_config

__all__ = ["Cutting2DCoreEnvironment", "parse_demand"]

_INVALID_ACTION_REWARD = -2.0
_RAW_PIECE_REWARD = -1.0


class Cutting2DCoreEnvironment(CoreEnv, SimulatedEnvMixin):
    """Online 2D guillotine cutting stock.

    Every step brings one customer order (an ``(x, y)`` size from ``static_demand``). The
    agent picks an inventory piece, whether to rotate the order and which guillotine cut
    comes first; the order is cut out of the piece and the remainders go back into the
    inventory. An episode starts with one raw piece in stock; whenever a raw piece is cut,
    a fresh one is replenished. The inventory is FIFO: when full, the oldest piece is
    discarded (a discarded raw piece is not replaced). The goal is to use as few raw
    pieces as possible.

    Reward: without ``reward_aggregator`` the built-in one of the tutorial's first part,
    ``-1`` when a raw piece had to be replenished, ``-2`` for an invalid action (the order
    does not fit the piece, or the piece index names no stocked piece), else ``0``. With an aggregator
    the reward is whatever it computes from the step's events. ``info`` reports
    ``{"msg": "valid_cut"}``, ``{"error": "invalid_cut"}`` or
    ``{"error": "piece_id_out_of_bounds"}``.

    The env never terminates or truncates an episode by itself; bound episodes with a
    :class:`~maze.env.wrappers.time_limit.TimeLimitWrapper`. It has no randomness:
    ``reset(seed=...)`` is accepted and changes nothing.

    As a simulation (:class:`~maze.env.core.mixins.SimulatedEnvMixin`): ``clone_from`` copies
    the inventory, the position in the demand cycle and the env time of another env built
    with the same capacity, raw piece size and demand; ``set_maze_state`` takes the inventory
    of a :class:`Cutting2DMazeState` and continues the demand cycle at the first position
    whose order is the state's ``current_demand`` (the state does not say which of several
    equal orders of a cycle is pending).

    Args:
        max_pieces_in_inventory: Inventory capacity.
        raw_piece_size: ``(x, y)`` size of a raw piece.
        static_demand: The order of every step, ``(x, y)``, or a list of orders issued in
            turn (cycled). Each order must fit into a raw piece, rotated or not.
        reward_aggregator: Optional :class:`RewardAggregatorInterface` (instance or
            ``_target_`` config) that replaces the built-in reward.
    """

    def __init__(
        self,
        max_pieces_in_inventory: int,
        raw_piece_size: Sequence[int],
        static_demand: Any,
        reward_aggregator: Optional[ConfigType] = None,
    ) -> None:
        super().__init__()
        count = max_pieces_in_inventory
        if isinstance(count, bool) or not isinstance(count, Integral) or count < 1:
            raise ConfigurationError(
                f"Cutting2DCoreEnvironment: max_pieces_in_inventory must be a positive int, got {count!r}"
            )
        self.max_pieces_in_inventory = int(max_pieces_in_inventory)
        self.raw_piece_size = _piece(raw_piece_size, "raw_piece_size")
        self.demand = parse_demand(static_demand, self.raw_piece_size)
        self.pubsub = Pubsub(self.context.event_service)
        self.cutting_events = self.pubsub.create_event_topic(CuttingEvents)
        self.inventory_events = self.pubsub.create_event_topic(InventoryEvents)
        self.reward_aggregator: Optional[RewardAggregatorInterface] = None
        if reward_aggregator is not None:
            self.reward_aggregator = Factory(RewardAggregatorInterface).instantiate(reward_aggregator)
            self.pubsub.register_subscriber(self.reward_aggregator)
        self.kpi_calculator = Cutting2dKpiCalculator()
        self.renderer = Cutting2DRenderer()
        self._start_episode()

    @property
    def current_demand(self) -> Piece:
        """The order to fulfil in the next step."""
        return self.demand[self._time % len(self.demand)]

    def step(self, maze_action: Cutting2DMazeAction) -> tuple[Cutting2DMazeState, float, bool, bool, dict]:
        """Fulfils the current order with ``maze_action`` (see the class docstring for rewards)."""
        # Whoever drives the env usually starts the step (MazeEnv does); a driver that steps
        # the core env directly gets the same per-step event log this way.
        self.context.pre_step()
        info: dict[str, str] = {}
        reward = 0.0
        demand = self.current_demand
        pieces = self.inventory.pieces
        piece = pieces[maze_action.piece_id] if 0 <= maze_action.piece_id < len(pieces) else None
        if piece is None:
            info["error"] = "piece_id_out_of_bounds"
            self.cutting_events.invalid_piece_selected()
            reward = _INVALID_ACTION_REWARD
        elif self.inventory.cut(maze_action, demand):
            info["msg"] = "valid_cut"
            self.cutting_events.valid_cut(
                current_demand=demand,
                piece_to_cut=piece,
                raw_piece_size=self.raw_piece_size,
                cutting_area=float(demand[0] * demand[1]),
            )
            if piece == self.raw_piece_size:
                self.inventory.replenish_piece()
                reward = _RAW_PIECE_REWARD
        else:
            info["error"] = "invalid_cut"
            self.cutting_events.invalid_cut(
                current_demand=demand, piece_to_cut=piece, raw_piece_size=self.raw_piece_size
            )
            reward = _INVALID_ACTION_REWARD
        self.inventory.log_step_statistics()
        self._time += 1
        self.context.increment_env_step()
        maze_state = self.get_maze_state()
        if self.reward_aggregator is not None:
            reward = float(self.reward_aggregator.summarize_reward(maze_state))
        return maze_state, reward, False, False, info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Cutting2DMazeState, dict]:
        """Empties the inventory, stocks one raw piece and restarts the demand cycle."""
        self._start_episode()
        return self.get_maze_state(), {}

    def get_maze_state(self) -> Cutting2DMazeState:
        """A snapshot of inventory and pending order."""
        return Cutting2DMazeState(
            self.inventory.pieces, self.max_pieces_in_inventory, self.current_demand, self.raw_piece_size
        )

    def get_renderer(self) -> Cutting2DRenderer:
        """Draws the picked piece with its cuts and the inventory."""
        return self.renderer

    def get_kpi_calculator(self) -> Cutting2dKpiCalculator:
        """Computes ``raw_piece_usage_per_step``."""
        return self.kpi_calculator

    def close(self) -> None:
        """Nothing to release."""

    def clone_from(self, env: Any) -> None:
        """Copies inventory, demand position and env time of ``env`` (same class and config); shares no list.

        Raises:
            ValueError: ``env`` is of another class or config.
        """
        if type(env) is not type(self) or env.simulation_config() != self.simulation_config():
            raise ValueError(
                f"{type(self).__name__}.clone_from needs a {type(self).__name__} with the config "
                f"{self.simulation_config()}, got {type(env).__name__}"
                + (f" with {env.simulation_config()}" if isinstance(env, Cutting2DCoreEnvironment) else "")
            )
        self._time = env._time
        self.inventory.pieces = list(env.inventory.pieces)
        self.context.step_id = env.context.step_id

    def set_maze_state(self, maze_state: Cutting2DMazeState) -> None:
        """Takes the inventory and pending order of ``maze_state`` (see the class docstring).

        Raises:
            ValueError: The state's capacity, raw piece size, inventory or order do not fit this env.
        """
        capacity, raw = maze_state.max_pieces_in_inventory, tuple(maze_state.raw_piece_size)
        if capacity != self.max_pieces_in_inventory or raw != self.raw_piece_size:
            raise ValueError(
                f"the MazeState has capacity {capacity} and raw pieces {raw}; this env has "
                f"{self.max_pieces_in_inventory} and {self.raw_piece_size}"
            )
        pieces = [(int(x), int(y)) for x, y in maze_state.inventory]
        if len(pieces) > capacity:
            raise ValueError(f"the MazeState stores {len(pieces)} pieces, more than its capacity {capacity}")
        order = tuple(int(v) for v in maze_state.current_demand)
        if order not in self.demand:
            raise ValueError(f"the MazeState's order {order} is not part of this env's demand cycle {self.demand}")
        self._time = self.demand.index(order)
        self.inventory.pieces = pieces

    def simulation_config(self) -> tuple[int, Piece, tuple[Piece, ...]]:
        """``(max_pieces_in_inventory, raw_piece_size, demand)``: what an env to clone from must share."""
        return self.max_pieces_in_inventory, self.raw_piece_size, tuple(self.demand)

    def _start_episode(self) -> None:
        """An inventory holding one raw piece, and the demand cycle at its start."""
        self._time = 0
        self.inventory = Inventory(self.max_pieces_in_inventory, self.raw_piece_size, self.inventory_events)
        self.inventory.replenish_piece()


def parse_demand(static_demand: Any, raw_piece_size: Piece) -> list[Piece]:
    """Normalises ``static_demand`` (one ``(x, y)`` order or a list of them) to a list of orders.

    Raises:
        ConfigurationError: For an empty list, a malformed order or one that fits into the
            raw piece in neither orientation.
    """
    demand = _plain(static_demand)
    if isinstance(demand, Sequence) and demand and all(isinstance(item, Integral) for item in demand):
        demand = [demand]
    if not isinstance(demand, Sequence) or isinstance(demand, str) or not demand:
        raise ConfigurationError(
            f"Cutting2DCoreEnvironment: static_demand must be an (x, y) size or a non-empty list of them, got {static_demand!r}"
        )
    orders = [_piece(item, f"static_demand[{index}]") for index, item in enumerate(demand)]
    for index, (x, y) in enumerate(orders):
        if not (x <= raw_piece_size[0] and y <= raw_piece_size[1]) and not (
            y <= raw_piece_size[0] and x <= raw_piece_size[1]
        ):
            raise ConfigurationError(
                f"Cutting2DCoreEnvironment: static_demand[{index}] = {(x, y)} does not fit into the raw piece "
                f"{raw_piece_size} in either orientation; make the order smaller or the raw piece bigger"
            )
    return orders


def _plain(value: Any) -> Any:
    """Turns OmegaConf containers and numpy arrays into plain lists."""
    return value.tolist() if isinstance(value, np.ndarray) else to_plain_config(value)


def _piece(value: Any, name: str) -> Piece:
    """Checks and converts an ``(x, y)`` size of positive ints."""
    value = _plain(value)
    if (
        not isinstance(value, Sequence)
        or len(value) != 2
        or not all(isinstance(v, Integral) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        raise ConfigurationError(
            f"Cutting2DCoreEnvironment: {name} must be an (x, y) pair of positive ints, got {value!r}"
        )
    return int(value[0]), int(value[1])
