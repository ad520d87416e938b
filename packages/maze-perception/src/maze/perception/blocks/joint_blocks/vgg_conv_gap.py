"""VGG convolutions, then global average pooling."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from maze.perception.blocks.base import KeysType, NonLinType, ShapesType
from maze.perception.blocks.feed_forward.vgg_conv import VGGConvolutionBlock
from maze.perception.blocks.general.gap import GlobalAveragePoolingBlock
from maze.perception.blocks.joint_blocks.chain import ChainedBlock
from torch import nn

__all__ = ["VGGConvolutionGAPBlock"]


class VGGConvolutionGAPBlock(ChainedBlock):
    """A :class:`VGGConvolutionBlock` followed by global average pooling.

    Maps an image ``(C, H, W)`` to ``(hidden_channels[-1],)``.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: ``(C, H, W)``.
        hidden_channels: The channels of each VGG stage.
        non_lin: The activation class (or its dotted path).
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        hidden_channels: Sequence[int],
        non_lin: NonLinType = nn.ReLU,
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.build_stages(
            [
                ("conv", partial(VGGConvolutionBlock, hidden_channels=hidden_channels, non_lin=non_lin)),
                ("gap", partial(GlobalAveragePoolingBlock, pooling_func="mean")),
            ]
        )
