"""The structured Cutting-2D env: each env step is two sub-steps, select a piece, then cut it.

Sub-step ``0`` (actor ``(0, 0)``) sees the flat observation and picks ``piece_idx``.
Sub-step ``1`` (actor ``(1, 0)``) sees ``selected_piece`` and ``ordered_piece`` and picks
``cut_rotation`` and ``cut_order``; only then is the cut executed and rewarded. The
defaults are the tutorial's "simple problem": raw pieces of 4 x 3, a cycle of six orders
with a total area of 12 (one raw piece per cycle at best), 50 inventory slots and
episodes of 180 steps (:data:`SIMPLE_PROBLEM_EPISODE_STEPS`, applied with a
TimeLimitWrapper), so at best 30 raw pieces are used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.core.conversion import ActionConversionInterface, ObservationConversionInterface
from maze.env.core.maze_env import MazeEnv
from maze.env.core.simulation import SimulatedMazeEnv
from maze.env.examples.cutting_2d.conversions import ObservationConversion, ordered_piece_space
from maze.env.examples.cutting_2d.core_env import Cutting2DCoreEnvironment
from maze.env.examples.cutting_2d.maze_action import Cutting2DMazeAction, Cutting2DPieceSelection
from maze.env.examples.cutting_2d.maze_state import Cutting2DMazeState
from maze.env.examples.cutting_2d.reward import DefaultRewardAggregator
from maze.env.utils.factory import ConfigType
from maze.env.utils.trust import trusted_factory

__all__ = [
    "SIMPLE_PROBLEM_MAX_PIECES",
    "SIMPLE_PROBLEM_RAW_PIECE_SIZE",
    "SIMPLE_PROBLEM_DEMAND",
    "SIMPLE_PROBLEM_EPISODE_STEPS",
    "StructuredCutting2DCoreEnvironment",
    "SelectionActionConversion",
    "CuttingObservationConversion",
    "CuttingActionConversion",
    "StructuredCutting2DEnvironment",
    "struct_env_factory",
]

SIMPLE_PROBLEM_MAX_PIECES = 50
SIMPLE_PROBLEM_RAW_PIECE_SIZE = (4, 3)
SIMPLE_PROBLEM_DEMAND = ((1, 2), (1, 2), (1, 1), (2, 2), (1, 2), (1, 1))
SIMPLE_PROBLEM_EPISODE_STEPS = 180

SELECTION_STEP, CUTTING_STEP = 0, 1


class StructuredCutting2DCoreEnvironment(Cutting2DCoreEnvironment):
    """The Cutting-2D simulation with a selection and a cutting sub-step per env step.

    Sub-step 0 takes a :class:`Cutting2DPieceSelection` and returns reward 0; sub-step 1
    takes the :class:`Cutting2DMazeAction` for the selected piece, executes the cut and
    completes the env step (``context.increment_env_step()``). The MazeState of sub-step
    1 names the selected piece in ``selected_piece_id``. Arguments as for
    :class:`Cutting2DCoreEnvironment`.
    """

    def __init__(
        self,
        max_pieces_in_inventory: int,
        raw_piece_size: Sequence[int],
        static_demand: Any,
        reward_aggregator: Optional[ConfigType] = None,
    ) -> None:
        self._sub_step = SELECTION_STEP
        self._selected_piece_id: Optional[int] = None
        self._last_reward: Optional[float] = None
        super().__init__(max_pieces_in_inventory, raw_piece_size, static_demand, reward_aggregator)

    def step(self, maze_action: Any) -> tuple[Cutting2DMazeState, float, bool, bool, dict]:
        """Records the selection (sub-step 0) or executes the cut (sub-step 1)."""
        if self._sub_step == SELECTION_STEP:
            if not isinstance(maze_action, Cutting2DPieceSelection):
                raise TypeError(
                    f"sub-step 0 (piece selection) takes a Cutting2DPieceSelection, got {maze_action!r}; "
                    "check actor_id() before stepping"
                )
            self._selected_piece_id = int(maze_action.piece_id)
            self._sub_step = CUTTING_STEP
            return self.get_maze_state(), 0.0, False, False, {}
        if not isinstance(maze_action, Cutting2DMazeAction) or maze_action.piece_id != self._selected_piece_id:
            raise ValueError(
                f"sub-step 1 (cutting) takes a Cutting2DMazeAction for the selected piece {self._selected_piece_id}, "
                f"got {maze_action!r}"
            )
        self._sub_step, self._selected_piece_id = SELECTION_STEP, None
        maze_state, reward, terminated, truncated, info = super().step(maze_action)
        self._last_reward = reward
        return maze_state, reward, terminated, truncated, info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Cutting2DMazeState, dict]:
        """Starts a new episode at the selection sub-step."""
        self._sub_step, self._selected_piece_id, self._last_reward = SELECTION_STEP, None, None
        return super().reset(seed=seed, options=options)

    def get_maze_state(self) -> Cutting2DMazeState:
        """The flat MazeState plus the piece selected for the pending cut."""
        return dataclasses.replace(super().get_maze_state(), selected_piece_id=self._selected_piece_id)

    def clone_from(self, env: Any) -> None:
        """Also copies the pending sub-step and selection (see :meth:`Cutting2DCoreEnvironment.clone_from`)."""
        super().clone_from(env)
        self._sub_step, self._selected_piece_id, self._last_reward = (
            env._sub_step,
            env._selected_piece_id,
            env._last_reward,
        )

    def set_maze_state(self, maze_state: Cutting2DMazeState) -> None:
        """Also takes the selected piece: a state with ``selected_piece_id`` continues at the cutting sub-step."""
        super().set_maze_state(maze_state)
        selected = maze_state.selected_piece_id
        self._selected_piece_id = None if selected is None else int(selected)
        self._sub_step = SELECTION_STEP if selected is None else CUTTING_STEP
        self._last_reward = None

    def actor_id(self) -> ActorID:
        """``(0, 0)`` selects, ``(1, 0)`` cuts."""
        return ActorID(self._sub_step, 0)

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        """One agent in each of the two sub-steps."""
        return {SELECTION_STEP: 1, CUTTING_STEP: 1}

    def get_actor_rewards(self) -> Optional[np.ndarray]:
        """The reward of the last completed env step, half to each actor (None before the first)."""
        if self._last_reward is None:
            return None
        return np.array([self._last_reward / 2.0, self._last_reward / 2.0])


class SelectionActionConversion(ActionConversionInterface):
    """``{"piece_idx": Discrete(max_pieces_in_inventory)}`` <-> :class:`Cutting2DPieceSelection`."""

    def __init__(self, max_pieces_in_inventory: int) -> None:
        self.max_pieces_in_inventory = int(max_pieces_in_inventory)

    def space_to_maze(self, action: dict[str, Any], maze_state: Any) -> Cutting2DPieceSelection:
        """The selection of ``action``."""
        return Cutting2DPieceSelection(piece_id=int(action["piece_idx"]))

    def maze_to_space(self, maze_action: Any) -> dict[str, int]:
        """The selection part of a selection or a full cutting MazeAction."""
        return {"piece_idx": int(maze_action.piece_id)}

    def space(self) -> spaces.Dict:
        """The action space of the selection sub-step."""
        return spaces.Dict({"piece_idx": spaces.Discrete(self.max_pieces_in_inventory)})


class CuttingObservationConversion(ObservationConversionInterface):
    """MazeState with a selected piece -> ``{"selected_piece", "ordered_piece"}``.

    ``selected_piece`` (float32 ``(2,)``) is the size of the selected piece, zeros when the
    selection points to an empty slot; ``ordered_piece`` (float32 ``(2,)``) the order.

    Args:
        raw_piece_size: Size of a raw piece (bounds the sizes).
    """

    def __init__(self, raw_piece_size: Sequence[int]) -> None:
        self.raw_piece_size = (int(raw_piece_size[0]), int(raw_piece_size[1]))

    def maze_to_space(self, maze_state: Cutting2DMazeState) -> dict[str, np.ndarray]:
        """The observation of the cutting sub-step."""
        piece = maze_state.piece(maze_state.selected_piece_id) if maze_state.selected_piece_id is not None else None
        return {
            "selected_piece": np.asarray(piece if piece is not None else (0, 0), dtype=np.float32),
            "ordered_piece": np.asarray(maze_state.current_demand, dtype=np.float32),
        }

    def space(self) -> spaces.Dict:
        """The observation space of the cutting sub-step."""
        high = np.array([self.raw_piece_size[0] + 1, self.raw_piece_size[1] + 1], dtype=np.float32)
        return spaces.Dict(
            {
                "selected_piece": spaces.Box(low=np.zeros(2, dtype=np.float32), high=high, dtype=np.float32),
                "ordered_piece": ordered_piece_space(self.raw_piece_size),
            }
        )


class CuttingActionConversion(ActionConversionInterface):
    """``{"cut_rotation", "cut_order"}`` (Discrete(2) each) -> the cut of the selected piece."""

    def space_to_maze(self, action: dict[str, Any], maze_state: Cutting2DMazeState) -> Cutting2DMazeAction:
        """The full MazeAction: the piece from ``maze_state.selected_piece_id``, the cut from ``action``."""
        return Cutting2DMazeAction(
            piece_id=maze_state.selected_piece_id,
            rotate=bool(action["cut_rotation"]),
            reverse_cutting_order=bool(action["cut_order"]),
        )

    def maze_to_space(self, maze_action: Cutting2DMazeAction) -> dict[str, int]:
        """The cutting part of a full MazeAction."""
        return {"cut_rotation": int(maze_action.rotate), "cut_order": int(maze_action.reverse_cutting_order)}

    def space(self) -> spaces.Dict:
        """The action space of the cutting sub-step."""
        return spaces.Dict({"cut_rotation": spaces.Discrete(2), "cut_order": spaces.Discrete(2)})


class StructuredCutting2DEnvironment(SimulatedMazeEnv, MazeEnv[StructuredCutting2DCoreEnvironment]):
    """The structured Cutting-2D MazeEnv: different spaces for the selection and the cutting sub-step.

    Subclasses change the observations by overriding the two conversion classes.

    Args:
        core_env: The structured simulation.
    """

    selection_observation_conversion: type[ObservationConversion] = ObservationConversion
    cutting_observation_conversion: type[CuttingObservationConversion] = CuttingObservationConversion

    def __init__(self, core_env: StructuredCutting2DCoreEnvironment) -> None:
        raw, capacity = core_env.raw_piece_size, core_env.max_pieces_in_inventory
        super().__init__(
            core_env=core_env,
            action_conversion_dict={
                SELECTION_STEP: SelectionActionConversion(capacity),
                CUTTING_STEP: CuttingActionConversion(),
            },
            observation_conversion_dict={
                SELECTION_STEP: self.selection_observation_conversion(raw, capacity),
                CUTTING_STEP: self.cutting_observation_conversion(raw),
            },
        )

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[Optional[dict[StepKeyType, Any]], Optional[dict[StepKeyType, Any]]]:
        """The sub-step observations and actions of a recorded MazeState and MazeAction.

        A flat record (a state without selected piece and the full :class:`Cutting2DMazeAction`,
        as the flat env records it) splits into both sub-steps. Records of this env itself hold
        one sub-step each: a :class:`Cutting2DPieceSelection` gives the selection sub-step, a
        cut recorded in a state with a selected piece the cutting sub-step.

        Returns:
            ``({0: selection obs, 1: cutting obs}, {0: {"piece_idx"}, 1: {"cut_rotation", "cut_order"}})``
            (only the recorded sub-step's entries for sub-step records); without a MazeAction
            only the observation of the state's sub-step (and no actions).
        """
        if maze_state is None:
            return None, None
        if maze_state.selected_piece_id is not None:  # recorded in the cutting sub-step
            observations = {CUTTING_STEP: self.observation_conversion_dict[CUTTING_STEP].maze_to_space(maze_state)}
        else:
            observations = {SELECTION_STEP: self.observation_conversion_dict[SELECTION_STEP].maze_to_space(maze_state)}
        if maze_action is None:
            return observations, None
        if isinstance(maze_action, Cutting2DPieceSelection) and SELECTION_STEP in observations:
            return observations, {
                SELECTION_STEP: self.action_conversion_dict[SELECTION_STEP].maze_to_space(maze_action)
            }
        if not isinstance(maze_action, Cutting2DMazeAction):
            raise TypeError(
                f"expected a recorded Cutting2DPieceSelection (selection sub-step) or Cutting2DMazeAction, got "
                f"{maze_action!r}"
            )
        if CUTTING_STEP in observations:
            return observations, {CUTTING_STEP: self.action_conversion_dict[CUTTING_STEP].maze_to_space(maze_action)}
        selected = dataclasses.replace(maze_state, selected_piece_id=maze_action.piece_id)
        observations[CUTTING_STEP] = self.observation_conversion_dict[CUTTING_STEP].maze_to_space(selected)
        actions = {key: self.action_conversion_dict[key].maze_to_space(maze_action) for key in observations}
        return observations, actions


def build_structured_env(
    env_class: type[StructuredCutting2DEnvironment],
    max_pieces_in_inventory: int,
    raw_piece_size: Sequence[int],
    static_demand: Any,
    reward_aggregator: Optional[ConfigType],
) -> StructuredCutting2DEnvironment:
    """Builds ``env_class`` around a structured core env (``reward_aggregator`` None: the default one)."""
    if reward_aggregator is None:
        reward_aggregator = DefaultRewardAggregator(invalid_action_penalty=-2, raw_piece_usage_penalty=-1)
    core_env = StructuredCutting2DCoreEnvironment(
        max_pieces_in_inventory, raw_piece_size, static_demand, reward_aggregator=reward_aggregator
    )
    return env_class(core_env)


@trusted_factory
def struct_env_factory(
    max_pieces_in_inventory: int = SIMPLE_PROBLEM_MAX_PIECES,
    raw_piece_size: Sequence[int] = SIMPLE_PROBLEM_RAW_PIECE_SIZE,
    static_demand: Any = SIMPLE_PROBLEM_DEMAND,
    reward_aggregator: Optional[ConfigType] = None,
) -> StructuredCutting2DEnvironment:
    """Builds the structured env; the defaults are the "simple problem" (see the module docstring).

    Args:
        max_pieces_in_inventory: Inventory capacity.
        raw_piece_size: ``(x, y)`` size of a raw piece.
        static_demand: One ``(x, y)`` order, or a list of orders issued in turn.
        reward_aggregator: Instance or config; defaults to ``DefaultRewardAggregator(-2, -1)``.
    """
    return build_structured_env(
        StructuredCutting2DEnvironment, max_pieces_in_inventory, raw_piece_size, static_demand, reward_aggregator
    )
