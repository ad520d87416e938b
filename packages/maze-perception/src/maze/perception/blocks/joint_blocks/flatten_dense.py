"""Flatten, then dense layers."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from maze.perception.blocks.base import KeysType, NonLinType, ShapesType
from maze.perception.blocks.feed_forward.dense import DenseBlock
from maze.perception.blocks.general.flatten import FlattenBlock
from maze.perception.blocks.joint_blocks.chain import ChainedBlock
from torch import nn

__all__ = ["FlattenDenseBlock"]


class FlattenDenseBlock(ChainedBlock):
    """A :class:`FlattenBlock` followed by a :class:`DenseBlock`.

    Maps e.g. ``(C, H, W)`` with ``num_flatten_dims=3`` to ``(hidden_units[-1],)``.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: The input shape without batch dims.
        num_flatten_dims: How many trailing dims to flatten.
        hidden_units: The units of each dense layer.
        non_lin: The activation class (or its dotted path).
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        num_flatten_dims: int,
        hidden_units: Sequence[int],
        non_lin: NonLinType = nn.ReLU,
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.build_stages(
            [
                ("flat", partial(FlattenBlock, num_flatten_dims=num_flatten_dims)),
                ("dense", partial(DenseBlock, hidden_units=hidden_units, non_lin=non_lin)),
            ]
        )
