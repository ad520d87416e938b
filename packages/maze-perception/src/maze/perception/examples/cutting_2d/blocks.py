"""Block groups shared by the Cutting-2D networks, and their InferenceBlock-based base class.

The networks read the env's observation keys by name and ignore any others (masks they do
not use, pre-processed copies such as ``inventory-flatten``, ``inventory_size``), so the
same config works with or without the tutorial wrappers. Sizes (inventory slots, logits)
always come from ``obs_shapes`` and ``action_logits_shapes``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Optional

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks import (
    ActionMaskingBlock,
    ConcatenationBlock,
    DenseBlock,
    FlattenBlock,
    InferenceBlock,
    LinearOutputBlock,
    MaskedGlobalPoolingBlock,
    PerceptionBlock,
    RepeatToMatchBlock,
)
from maze.perception.blocks.base import NonLinType, ShapeType
from maze.perception.weight_init import make_module_init_normc
from torch import nn

__all__ = [
    "BlockDict",
    "INVENTORY",
    "ORDERED_PIECE",
    "SELECTED_PIECE",
    "Cutting2DInferenceNet",
    "checked_shapes",
    "dense_over_concat",
    "linear_heads",
    "logits_key",
    "masked",
    "pooled_slots",
    "slot_latent",
    "slot_scores",
]

INVENTORY = "inventory"
"""Observation ``(N, 2)``: the size of the piece in each of the N inventory slots (zeros for empty slots)."""

ORDERED_PIECE = "ordered_piece"
"""Observation ``(2,)``: the size of the current order."""

SELECTED_PIECE = "selected_piece"
"""Observation ``(2,)`` of the cutting sub-step: the size of the selected piece."""

BlockDict = dict[str, PerceptionBlock]
"""Perception blocks by name (the name of a block is also its output key)."""


def checked_shapes(
    owner: str, obs_shapes: Mapping[str, Sequence[int]], required: Sequence[str]
) -> dict[str, ShapeType]:
    """Returns the observation shapes as tuples after checking the keys a network reads.

    Args:
        owner: The network's name for error messages.
        obs_shapes: Observation key -> shape without batch dims.
        required: Keys that must be present; ``inventory`` must be ``(N, 2)``, pieces ``(2,)``.

    Raises:
        ConfigurationError: Naming the missing key or the bad shape and what to change.
    """
    shapes = {key: tuple(int(dim) for dim in shape) for key, shape in obs_shapes.items()}
    missing = [key for key in required if key not in shapes]
    if missing:
        raise ConfigurationError(
            f"{owner} needs the observations {missing} but got {sorted(shapes)}; use it with the matching Cutting-2D "
            f"env, and keep the original {INVENTORY!r} (keep_original: true) when a wrapper flattens it"
        )
    for key in required:
        expected_rank = 2 if key == INVENTORY else 1
        if len(shapes[key]) != expected_rank or shapes[key][-1] != 2:
            expected = "(N, 2)" if key == INVENTORY else "(2,)"
            raise ConfigurationError(f"{owner}: observation {key!r} has shape {shapes[key]}, expected {expected}")
    return shapes


def dense_over_concat(
    blocks: BlockDict,
    shapes: Mapping[str, ShapeType],
    in_keys: Sequence[str],
    out_key: str,
    hidden_units: Sequence[int],
    non_lin: NonLinType,
) -> ShapeType:
    """Adds ``<out_key>_concat`` (vectors concatenated) and ``out_key`` (DenseBlock); returns its shape.

    Args:
        blocks: Block dict to extend in place.
        shapes: Shapes of the tensors named by ``in_keys`` (observations or block outputs).
        in_keys: Vector tensors ``(F_i,)``.
        out_key: The dense output ``(hidden_units[-1],)``.
        hidden_units: Units of the dense layers.
        non_lin: Activation class or dotted path.
    """
    concat = f"{out_key}_concat"
    blocks[concat] = ConcatenationBlock(list(in_keys), concat, [shapes[key] for key in in_keys])
    blocks[out_key] = DenseBlock(concat, out_key, blocks[concat].out_shapes(), hidden_units, non_lin)
    return blocks[out_key].out_shapes()[0]


def slot_latent(
    blocks: BlockDict, shapes: Mapping[str, ShapeType], hidden_units: Sequence[int], non_lin: NonLinType
) -> ShapeType:
    """Adds ``slot_latent`` ``(N, H)``: every slot's piece with the order, through dense layers shared by all slots.

    ``ordered_piece`` ``(2,)`` is repeated to ``(N, 2)``, concatenated with ``inventory``
    ``(N, 2)`` to ``(N, 4)`` and embedded slot by slot; returns the shape ``(N, H)``.
    """
    blocks["ordered_piece_per_slot"] = RepeatToMatchBlock(
        [ORDERED_PIECE, INVENTORY], "ordered_piece_per_slot", [shapes[ORDERED_PIECE], shapes[INVENTORY]], -2
    )
    blocks["slot_features"] = ConcatenationBlock(
        [INVENTORY, "ordered_piece_per_slot"],
        "slot_features",
        [shapes[INVENTORY], blocks["ordered_piece_per_slot"].out_shapes()[0]],
    )
    blocks["slot_latent"] = DenseBlock(
        "slot_features", "slot_latent", blocks["slot_features"].out_shapes(), hidden_units, non_lin
    )
    return blocks["slot_latent"].out_shapes()[0]


def slot_scores(blocks: BlockDict, latent_shape: ShapeType, out_key: str) -> None:
    """Adds ``out_key`` ``(N,)``: one linear score per slot of ``slot_latent`` ``(N, H)``."""
    blocks["slot_score"] = LinearOutputBlock("slot_latent", "slot_score", latent_shape, 1)
    blocks[out_key] = FlattenBlock("slot_score", out_key, blocks["slot_score"].out_shapes(), num_flatten_dims=2)


def pooled_slots(blocks: BlockDict, latent_shape: ShapeType) -> ShapeType:
    """Adds ``inventory_pooled`` ``(H,)``: the slot-wise maximum of ``slot_latent`` ``(N, H)``; returns its shape."""
    blocks["inventory_pooled"] = MaskedGlobalPoolingBlock(
        "slot_latent", "inventory_pooled", latent_shape, pooling_func="max", pooling_dim=-2
    )
    return blocks["inventory_pooled"].out_shapes()[0]


def linear_heads(
    blocks: BlockDict, latent_key: str, latent_shape: ShapeType, output_shapes: Mapping[str, Sequence[int]]
) -> None:
    """Adds one LinearOutputBlock per output key (``prod(shape)`` units, block named like its output)."""
    for key, shape in output_shapes.items():
        blocks[key] = LinearOutputBlock(latent_key, key, latent_shape, math.prod(shape))


def logits_key(head: str, mask_key: Optional[str]) -> str:
    """The tensor holding the raw logits of ``head``: ``head`` itself, or ``<head>_logits`` when masked."""
    return head if mask_key is None else f"{head}_logits"


def masked(blocks: BlockDict, owner: str, shapes: Mapping[str, ShapeType], head: str, mask_key: Optional[str]) -> None:
    """With a ``mask_key``, adds an ActionMaskingBlock from ``<head>_logits`` and the mask to ``head``.

    The block writing ``<head>_logits`` (see :func:`logits_key`) must already be in ``blocks``
    under that name; with ``mask_key`` None nothing is added.

    Raises:
        ConfigurationError: If ``mask_key`` is not an observation.
    """
    if mask_key is None:
        return
    if mask_key not in shapes:
        raise ConfigurationError(
            f"{owner}: mask_key {mask_key!r} is not an observation (got {sorted(shapes)}); use the masked env "
            f"(masked_struct_env_factory) or set mask_key: null"
        )
    logits = logits_key(head, mask_key)
    blocks[f"{head}_masking"] = ActionMaskingBlock(
        [logits, mask_key], head, [blocks[logits].out_shapes()[0], shapes[mask_key]]
    )


class Cutting2DInferenceNet(nn.Module):
    """Base of the Cutting-2D networks: one InferenceBlock over the observations its blocks read.

    Hidden layers get normc weights (std 1), the head blocks normc with ``head_std``.

    Args:
        shapes: Observation key -> shape; keys no block reads are not inputs.
        blocks: The perception blocks by name.
        out_keys: The outputs (action logits, or ``value``).
        head_blocks: Names of the blocks initialised with ``head_std``.
        head_std: 0.01 for policy logits (near-uniform start), 1.0 for values.
    """

    def __init__(
        self,
        shapes: Mapping[str, ShapeType],
        blocks: BlockDict,
        out_keys: Sequence[str],
        head_blocks: Sequence[str],
        head_std: float,
    ) -> None:
        super().__init__()
        read = {key for block in blocks.values() for key in block.in_keys}
        in_keys = [key for key in shapes if key in read]
        self.perception_net = InferenceBlock(in_keys, list(out_keys), [shapes[key] for key in in_keys], blocks)
        self.perception_net.apply(make_module_init_normc(1.0))
        for name in head_blocks:
            blocks[name].apply(make_module_init_normc(head_std))

    def forward(self, in_tensor_dict: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Observations ``[*batch, *shape]`` (extra keys ignored) -> outputs ``[*batch, *out_shape]``."""
        return self.perception_net(in_tensor_dict)
