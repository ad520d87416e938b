"""Strided convolutions, flatten, then dense layers."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Optional

from maze.perception.blocks.base import KeysType, NonLinType, ShapesType
from maze.perception.blocks.feed_forward.dense import DenseBlock
from maze.perception.blocks.feed_forward.strided_conv import PaddingType, StridedConvolutionBlock
from maze.perception.blocks.general.flatten import FlattenBlock
from maze.perception.blocks.joint_blocks.chain import ChainedBlock
from torch import nn

__all__ = ["StridedConvolutionDenseBlock"]


class StridedConvolutionDenseBlock(ChainedBlock):
    """A :class:`StridedConvolutionBlock`, a flatten of its output and a :class:`DenseBlock`.

    Maps ``(C, *spatial)`` to ``(hidden_units[-1],)``. The convolution arguments are those of
    :class:`StridedConvolutionBlock`.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: ``(C, *spatial)``.
        hidden_channels: The output channels of each convolution.
        hidden_kernels: The kernel size of each convolution.
        hidden_units: The units of each dense layer.
        convolution_dimension: The number of spatial dimensions (1, 2 or 3).
        hidden_strides: The stride of each convolution (default 1).
        hidden_dilations: The dilation of each convolution (default 1).
        hidden_padding: The padding of each convolution (default 0).
        padding_mode: The convolution padding mode (default zeros).
        non_lin: The activation class (or its dotted path).
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        hidden_channels: Sequence[int],
        hidden_kernels: Sequence[int],
        hidden_units: Sequence[int],
        convolution_dimension: int = 2,
        hidden_strides: Optional[Sequence[int]] = None,
        hidden_dilations: Optional[Sequence[int]] = None,
        hidden_padding: Optional[Sequence[PaddingType]] = None,
        padding_mode: Optional[str] = None,
        non_lin: NonLinType = nn.ReLU,
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        conv = partial(
            StridedConvolutionBlock,
            hidden_channels=hidden_channels,
            hidden_kernels=hidden_kernels,
            convolution_dimension=convolution_dimension,
            hidden_strides=hidden_strides,
            hidden_dilations=hidden_dilations,
            hidden_padding=hidden_padding,
            padding_mode=padding_mode,
            non_lin=non_lin,
        )
        self.build_stages(
            [
                ("conv", conv),
                ("flat", partial(FlattenBlock, num_flatten_dims=convolution_dimension + 1)),
                ("dense", partial(DenseBlock, hidden_units=hidden_units, non_lin=non_lin)),
            ]
        )
