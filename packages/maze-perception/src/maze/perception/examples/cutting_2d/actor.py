"""Policy networks of the Cutting-2D tutorial: piece selection, cutting, and the flat joint policy.

Pieces are selected by scoring every inventory slot from its piece and the order with
dense layers shared by all slots, so the networks fit any inventory capacity and treat
slots alike wherever a piece sits. Configure them in a ``CustomModelComposer`` (see the
``tutorial_cutting_2d_*`` model configs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Optional

from maze.perception.blocks.base import NonLinType
from maze.perception.examples.cutting_2d.blocks import (
    INVENTORY,
    ORDERED_PIECE,
    SELECTED_PIECE,
    BlockDict,
    Cutting2DInferenceNet,
    checked_shapes,
    dense_over_concat,
    linear_heads,
    logits_key,
    masked,
    pooled_slots,
    slot_latent,
    slot_scores,
)

__all__ = [
    "PIECE_IDX",
    "CUT_ROTATION",
    "Cutting2DCuttingPolicyNet",
    "Cutting2DFlatPolicyNet",
    "Cutting2DSelectionPolicyNet",
]

PIECE_IDX = "piece_idx"
"""Action head: the inventory slot to cut from."""

CUT_ROTATION = "cut_rotation"
"""Action head: 1 rotates the order (the head ``cutting_mask`` masks)."""

POLICY_HEAD_STD = 0.01
"""Norm of the logits layers' weights per unit: a near-uniform policy at the start."""


class Cutting2DSelectionPolicyNet(Cutting2DInferenceNet):
    """Selection sub-step: ``piece_idx`` logits ``(N,)``, one score per inventory slot.

    Each slot's ``(piece, order)`` pair ``(4,)`` goes through the same dense layers and a
    linear score. With ``mask_key`` (the masked env's ``inventory_mask`` ``(N,)``) slots
    where the mask is 0 get the lowest logit and are never sampled.

    Args:
        obs_shapes: Needs ``inventory`` ``(N, 2)``, ``ordered_piece`` ``(2,)`` (and ``mask_key``); others are ignored.
        action_logits_shapes: ``{"piece_idx": (N,)}``.
        hidden_units: Units of the per-slot dense layers.
        non_lin: Activation class or dotted path.
        mask_key: Observation masking ``piece_idx`` (``inventory_mask``), or None.
    """

    def __init__(
        self,
        obs_shapes: Mapping[str, Sequence[int]],
        action_logits_shapes: Mapping[str, Sequence[int]],
        hidden_units: Sequence[int],
        non_lin: NonLinType,
        mask_key: Optional[str] = None,
    ) -> None:
        owner = type(self).__name__
        shapes = checked_shapes(owner, obs_shapes, [INVENTORY, ORDERED_PIECE])
        blocks: BlockDict = {}
        slot_scores(blocks, slot_latent(blocks, shapes, hidden_units, non_lin), logits_key(PIECE_IDX, mask_key))
        masked(blocks, owner, shapes, PIECE_IDX, mask_key)
        super().__init__(shapes, blocks, list(action_logits_shapes), ["slot_score"], POLICY_HEAD_STD)


class Cutting2DCuttingPolicyNet(Cutting2DInferenceNet):
    """Cutting sub-step: ``cut_rotation`` and ``cut_order`` logits from the selected and the ordered piece.

    ``selected_piece`` and ``ordered_piece`` are concatenated ``(4,)`` and go through dense
    layers to one linear head per action. With ``mask_key`` (the masked env's
    ``cutting_mask`` ``(2,)``: [fits as is, fits rotated]) the rotations that do not fit
    are never sampled.

    Args:
        obs_shapes: Needs ``selected_piece`` ``(2,)``, ``ordered_piece`` ``(2,)`` (and ``mask_key``).
        action_logits_shapes: ``{"cut_rotation": (2,), "cut_order": (2,)}``.
        hidden_units: Units of the dense layers.
        non_lin: Activation class or dotted path.
        mask_key: Observation masking ``cut_rotation`` (``cutting_mask``), or None.
    """

    def __init__(
        self,
        obs_shapes: Mapping[str, Sequence[int]],
        action_logits_shapes: Mapping[str, Sequence[int]],
        hidden_units: Sequence[int],
        non_lin: NonLinType,
        mask_key: Optional[str] = None,
    ) -> None:
        owner = type(self).__name__
        shapes = checked_shapes(owner, obs_shapes, [SELECTED_PIECE, ORDERED_PIECE])
        blocks: BlockDict = {}
        latent = dense_over_concat(blocks, shapes, [SELECTED_PIECE, ORDERED_PIECE], "latent", hidden_units, non_lin)
        heads = {
            logits_key(head, mask_key if head == CUT_ROTATION else None): shape
            for head, shape in action_logits_shapes.items()
        }
        linear_heads(blocks, "latent", latent, heads)
        masked(blocks, owner, shapes, CUT_ROTATION, mask_key)
        super().__init__(shapes, blocks, list(action_logits_shapes), list(heads), POLICY_HEAD_STD)


class Cutting2DFlatPolicyNet(Cutting2DInferenceNet):
    """Flat env: ``piece_idx`` from per-slot scores, the cut heads from the whole inventory and the order.

    ``piece_idx`` is scored as in :class:`Cutting2DSelectionPolicyNet`; the other heads
    (``cut_rotation``, ``cut_order``) read the slot-wise maximum of the slot embeddings
    concatenated with ``ordered_piece``, through dense layers. The heads are sampled
    independently, so the cut cannot depend on the piece sampled in the same step (which is
    what the structured env's cutting sub-step adds).

    Args:
        obs_shapes: Needs ``inventory`` ``(N, 2)`` and ``ordered_piece`` ``(2,)``; others are ignored.
        action_logits_shapes: ``{"piece_idx": (N,), "cut_rotation": (2,), "cut_order": (2,)}``.
        hidden_units: Units of the per-slot and of the global dense layers.
        non_lin: Activation class or dotted path.
    """

    def __init__(
        self,
        obs_shapes: Mapping[str, Sequence[int]],
        action_logits_shapes: Mapping[str, Sequence[int]],
        hidden_units: Sequence[int],
        non_lin: NonLinType,
    ) -> None:
        shapes = checked_shapes(type(self).__name__, obs_shapes, [INVENTORY, ORDERED_PIECE])
        blocks: BlockDict = {}
        slots = slot_latent(blocks, shapes, hidden_units, non_lin)
        slot_scores(blocks, slots, PIECE_IDX)
        pooled = {"inventory_pooled": pooled_slots(blocks, slots), ORDERED_PIECE: shapes[ORDERED_PIECE]}
        latent = dense_over_concat(blocks, pooled, list(pooled), "latent", hidden_units, non_lin)
        cut_heads = {head: shape for head, shape in action_logits_shapes.items() if head != PIECE_IDX}
        linear_heads(blocks, "latent", latent, cut_heads)
        super().__init__(shapes, blocks, list(action_logits_shapes), ["slot_score", *cut_heads], POLICY_HEAD_STD)
