"""The Cutting-2D example env family: online 2D guillotine cutting stock.

Every step a customer order (an ``(x, y)`` size) arrives and is cut out of an inventory
piece; a fresh raw piece is replenished whenever the stocked one gets cut; the aim is to
use as few raw pieces as possible. The family grows like the step-by-step tutorial:

* :class:`Cutting2DCoreEnvironment` - the simulation (MazeState, MazeAction, inventory,
  events, KPI, renderer, optional reward aggregator);
* :class:`Cutting2DEnvironment` / :func:`maze_env_factory` - the flat MazeEnv with dict
  spaces (joint action: piece, rotation, cutting order);
* :class:`StructuredCutting2DEnvironment` / :func:`struct_env_factory` - select a piece,
  then cut it, as two sub-steps with their own spaces;
* :class:`MaskedStructuredCutting2DEnvironment` / :func:`masked_struct_env_factory` - the
  same with step-conditional action masks;
* :class:`Cutting2DGreedyPolicy`, :class:`FlatCutting2DGreedyPolicy`,
  :class:`RandomValidCutting2DPolicy` - heuristic baselines.
"""

from maze.env.examples.cutting_2d.conversions import ActionConversion, ObservationConversion
from maze.env.examples.cutting_2d.core_env import Cutting2DCoreEnvironment
from maze.env.examples.cutting_2d.evaluation import EpisodeSummary, run_episode
from maze.env.examples.cutting_2d.events import CuttingEvents, InventoryEvents
from maze.env.examples.cutting_2d.inventory import Inventory
from maze.env.examples.cutting_2d.kpi_calculator import Cutting2dKpiCalculator
from maze.env.examples.cutting_2d.maze_action import Cutting2DMazeAction, Cutting2DPieceSelection
from maze.env.examples.cutting_2d.maze_env import Cutting2DEnvironment, maze_env_factory
from maze.env.examples.cutting_2d.maze_state import Cutting2DMazeState
from maze.env.examples.cutting_2d.policies import (
    Cutting2DGreedyPolicy,
    FlatCutting2DGreedyPolicy,
    RandomValidCutting2DPolicy,
)
from maze.env.examples.cutting_2d.renderer import Cutting2DRenderer
from maze.env.examples.cutting_2d.reward import DefaultRewardAggregator
from maze.env.examples.cutting_2d.struct_env import (
    SIMPLE_PROBLEM_DEMAND,
    SIMPLE_PROBLEM_EPISODE_STEPS,
    SIMPLE_PROBLEM_MAX_PIECES,
    SIMPLE_PROBLEM_RAW_PIECE_SIZE,
    StructuredCutting2DCoreEnvironment,
    StructuredCutting2DEnvironment,
    struct_env_factory,
)
from maze.env.examples.cutting_2d.struct_env_masked import (
    MaskedStructuredCutting2DEnvironment,
    cutting_mask,
    inventory_mask,
    masked_struct_env_factory,
)

__all__ = [
    "ActionConversion",
    "Cutting2DCoreEnvironment",
    "Cutting2DEnvironment",
    "Cutting2DGreedyPolicy",
    "Cutting2DMazeAction",
    "Cutting2DMazeState",
    "Cutting2DPieceSelection",
    "Cutting2DRenderer",
    "Cutting2dKpiCalculator",
    "CuttingEvents",
    "DefaultRewardAggregator",
    "EpisodeSummary",
    "FlatCutting2DGreedyPolicy",
    "Inventory",
    "InventoryEvents",
    "MaskedStructuredCutting2DEnvironment",
    "ObservationConversion",
    "RandomValidCutting2DPolicy",
    "SIMPLE_PROBLEM_DEMAND",
    "SIMPLE_PROBLEM_EPISODE_STEPS",
    "SIMPLE_PROBLEM_MAX_PIECES",
    "SIMPLE_PROBLEM_RAW_PIECE_SIZE",
    "StructuredCutting2DCoreEnvironment",
    "StructuredCutting2DEnvironment",
    "cutting_mask",
    "inventory_mask",
    "maze_env_factory",
    "masked_struct_env_factory",
    "run_episode",
    "struct_env_factory",
]
