"""State value network of the Cutting-2D tutorial, for the flat env and for both structured sub-steps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
    pooled_slots,
    slot_latent,
)

__all__ = ["Cutting2DStateValueNet"]


class Cutting2DStateValueNet(Cutting2DInferenceNet):
    """``value`` ``(1,)`` of a Cutting-2D observation; adapts to the observation keys of each sub-step.

    If ``inventory`` ``(N, 2)`` is observed (flat env, selection sub-step), every slot is
    embedded with the order by dense layers shared by all slots and the embeddings are
    max-pooled over the slots. That pooled vector (if any), ``selected_piece`` (if
    observed, cutting sub-step) and ``ordered_piece`` are concatenated and go through dense
    layers to a linear value head. Other observations (masks, ``inventory_size``,
    flattened copies) are ignored. One config thus serves every critic of a
    ``StepStateCriticComposer``.

    Args:
        obs_shapes: Needs ``ordered_piece`` ``(2,)``; uses ``inventory`` and ``selected_piece`` when present.
        hidden_units: Units of the per-slot and of the value dense layers.
        non_lin: Activation class or dotted path.
    """

    def __init__(self, obs_shapes: Mapping[str, Sequence[int]], hidden_units: Sequence[int], non_lin: NonLinType):
        keys = [key for key in (INVENTORY, SELECTED_PIECE) if key in obs_shapes] + [ORDERED_PIECE]
        shapes = checked_shapes(type(self).__name__, obs_shapes, keys)
        blocks: BlockDict = {}
        features = {key: shapes[key] for key in keys if key != INVENTORY}
        if INVENTORY in shapes:
            features = {
                "inventory_pooled": pooled_slots(blocks, slot_latent(blocks, shapes, hidden_units, non_lin))
            } | features
        latent = dense_over_concat(blocks, features, list(features), "latent", hidden_units, non_lin)
        linear_heads(blocks, "latent", latent, {"value": (1,)})
        super().__init__(shapes, blocks, ["value"], ["value"], head_std=1.0)
