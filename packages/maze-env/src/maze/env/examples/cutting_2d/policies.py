"""Heuristic baselines for the Cutting-2D envs, computed from observations only.

* Greedy selection: among the stored pieces the order fits into (rotated or not), the
  one with the smallest area (the oldest among equals), so raw pieces are cut only when
  nothing else fits.
* Greedy cut: among the orientations in which the order fits and both cutting orders,
  the one whose largest remainder has the largest area, keeping material in big pieces.
* Random valid actions: uniform among the pieces and orientations the action masks
  allow (a fair random baseline: it never wastes a step on an invalid action).

The masks are computed from the observation (see :mod:`.struct_env_masked`), so the
policies run on the flat, the structured and the masked structured env alike.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from maze.env.agent.policy import FlatPolicy, Policy
from maze.env.core.actor import ActorID
from maze.env.examples.cutting_2d.inventory import cut_residuals
from maze.env.examples.cutting_2d.struct_env_masked import cutting_mask, inventory_mask

__all__ = [
    "select_piece",
    "choose_cut",
    "Cutting2DGreedyPolicy",
    "FlatCutting2DGreedyPolicy",
    "RandomValidCutting2DPolicy",
]


def select_piece(inventory: np.ndarray, inventory_size: int, ordered_piece: np.ndarray) -> int:
    """Index of the smallest stored piece that can fulfil the order (0 when none can).

    Args:
        inventory: ``(max_pieces, 2)`` piece sizes, zero-padded.
        inventory_size: Number of stored pieces (the leading rows of ``inventory``).
        ordered_piece: ``(2,)`` size of the order.
    """
    candidates = np.flatnonzero(inventory_mask(inventory, inventory_size, ordered_piece))
    if candidates.size == 0:
        return 0
    pieces = np.asarray(inventory, dtype=np.float64)[candidates]
    return int(candidates[np.argmin(pieces[:, 0] * pieces[:, 1])])


def choose_cut(selected_piece: np.ndarray, ordered_piece: np.ndarray) -> tuple[int, int]:
    """``(cut_rotation, cut_order)`` whose largest remainder is largest; ``(0, 0)`` when nothing fits."""
    piece = (int(selected_piece[0]), int(selected_piece[1]))
    order = (int(ordered_piece[0]), int(ordered_piece[1]))
    options = [
        (rotation, cut_order)
        for rotation in np.flatnonzero(cutting_mask(selected_piece, ordered_piece))
        for cut_order in (0, 1)
    ]
    if not options:
        return 0, 0

    def largest_remainder(option: tuple[int, int]) -> int:
        rotation, cut_order = option
        oriented = (order[1], order[0]) if rotation else order
        return max((w * h for w, h in cut_residuals(piece, oriented, bool(cut_order))), default=0)

    rotation, cut_order = max(options, key=largest_remainder)
    return int(rotation), cut_order


def _largest_remainder(piece: tuple[int, int], order: tuple[int, int], rotation: int, cut_order: int) -> float:
    """Area of the largest remainder of cutting ``order`` (rotated if ``rotation``) out of ``piece``."""
    oriented = (order[1], order[0]) if rotation else order
    return float(max((w * h for w, h in cut_residuals(piece, oriented, bool(cut_order))), default=0))


def _is_cutting_step(observation: dict[str, Any], actor_id: Optional[ActorID]) -> bool:
    """Sub-step 1 of the structured envs; recognised from the observation without ``actor_id``."""
    return actor_id.step_key == 1 if actor_id is not None else "selected_piece" in observation


def _inventory_size(observation: dict[str, Any]) -> int:
    return int(np.asarray(observation["inventory_size"]).item())


class Cutting2DGreedyPolicy(Policy):
    """The greedy heuristic for the structured (and masked structured) env.

    Sub-step 0 answers ``{"piece_idx"}``, sub-step 1 ``{"cut_rotation", "cut_order"}``.
    :meth:`compute_top_action_candidates` ranks the valid actions by the same scores
    (selection: smaller piece area first; cut: larger largest remainder first), with the
    probabilities of a softmax over the scores, so its first candidate is the greedy action.
    """

    def compute_top_action_candidates(
        self,
        observation: dict[str, Any],
        num_candidates: Optional[int],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
    ) -> tuple[list[dict[str, Any]], list[float]]:
        """The valid actions of the acting sub-step, best first (the greedy action alone when none is valid)."""
        if _is_cutting_step(observation, actor_id):
            piece = (int(observation["selected_piece"][0]), int(observation["selected_piece"][1]))
            order = (int(observation["ordered_piece"][0]), int(observation["ordered_piece"][1]))
            rotations = np.flatnonzero(cutting_mask(observation["selected_piece"], observation["ordered_piece"]))
            options = [
                (
                    {"cut_rotation": int(rotation), "cut_order": cut_order},
                    _largest_remainder(piece, order, rotation, cut_order),
                )
                for rotation in rotations
                for cut_order in (0, 1)
            ]
        else:
            inventory, order = observation["inventory"], observation["ordered_piece"]
            valid = np.flatnonzero(inventory_mask(inventory, _inventory_size(observation), order))
            options = [
                ({"piece_idx": int(index)}, -float(inventory[index][0] * inventory[index][1])) for index in valid
            ]
        if not options:
            return [self.compute_action(observation, actor_id=actor_id)], [1.0]
        options.sort(key=lambda option: -option[1])  # stable: ties keep the greedy order
        scores = np.array([score for _, score in options])
        probabilities = np.exp(scores - scores.max())
        probabilities /= probabilities.sum()
        count = len(options) if num_candidates is None else num_candidates
        return [action for action, _ in options[:count]], [float(p) for p in probabilities[:count]]

    def compute_action(
        self,
        observation: dict[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, Any]:
        """The greedy action of the acting sub-step."""
        if _is_cutting_step(observation, actor_id):
            rotation, cut_order = choose_cut(observation["selected_piece"], observation["ordered_piece"])
            return {"cut_rotation": rotation, "cut_order": cut_order}
        inventory, order = observation["inventory"], observation["ordered_piece"]
        return {"piece_idx": select_piece(inventory, _inventory_size(observation), order)}


class FlatCutting2DGreedyPolicy(FlatPolicy):
    """The greedy heuristic for the flat env: piece, rotation and cutting order in one action.

    Combine it into a structured policy with ``DefaultPolicy({0: FlatCutting2DGreedyPolicy()})``.
    """

    def compute_action(self, observation: dict[str, Any], deterministic: bool = False) -> dict[str, Any]:
        """The greedy joint action."""
        inventory, order = observation["inventory"], observation["ordered_piece"]
        piece_idx = select_piece(inventory, _inventory_size(observation), order)
        rotation, cut_order = choose_cut(inventory[piece_idx], order)
        return {"piece_idx": piece_idx, "cut_rotation": rotation, "cut_order": cut_order}


class RandomValidCutting2DPolicy(Policy):
    """Random actions among the valid ones, for the structured envs.

    Picks a piece uniformly among those the order fits into, a rotation uniformly among
    the fitting ones and the cutting order uniformly; falls back to index/rotation 0 when
    nothing is valid.

    Args:
        seed: Seed of the random generator.
    """

    def __init__(self, seed: Optional[int] = None) -> None:
        self._rng = np.random.default_rng(seed)

    def seed(self, seed: int) -> None:
        """Re-seeds the random generator."""
        self._rng = np.random.default_rng(seed)

    def compute_action(
        self,
        observation: dict[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, Any]:
        """A random valid action of the acting sub-step."""
        if _is_cutting_step(observation, actor_id):
            rotation = self._choice(cutting_mask(observation["selected_piece"], observation["ordered_piece"]))
            return {"cut_rotation": rotation, "cut_order": int(self._rng.integers(2))}
        mask = inventory_mask(observation["inventory"], _inventory_size(observation), observation["ordered_piece"])
        return {"piece_idx": self._choice(mask)}

    def _choice(self, mask: np.ndarray) -> int:
        allowed = np.flatnonzero(mask)
        return int(self._rng.choice(allowed)) if allowed.size else 0
