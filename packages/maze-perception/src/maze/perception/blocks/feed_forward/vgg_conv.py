"""VGG-style convolution stages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from maze.perception.blocks.base import KeysType, NonLinType, ShapesType, check_positive_ints, resolve_non_lin
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["VGGConvolutionBlock"]


class VGGConvolutionBlock(ShapeNormalizationBlock):
    """VGG-style stages: two 3x3 convolutions (padding 1) with activations, then 2x2 max pooling.

    Each stage keeps the spatial size through its convolutions and halves it (rounding
    down) by pooling: ``[B, C, H, W] -> [B, hidden_channels[-1], H / 2**n, W / 2**n]`` for
    ``n`` stages.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: The image shape ``(C, H, W)`` without batch dimension.
        hidden_channels: The number of channels of each stage.
        non_lin: The activation class (or its dotted path) applied after every convolution.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        hidden_channels: Sequence[int],
        non_lin: NonLinType = nn.ReLU,
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes, in_num_dims=4, out_num_dims=4)
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        self.hidden_channels = check_positive_ints(hidden_channels, "hidden_channels", type(self).__name__)
        self.non_lin = resolve_non_lin(non_lin)
        layers: list[nn.Module] = []
        in_channels = self.in_shapes[0][-3]
        for channels in self.hidden_channels:
            layers += [
                nn.Conv2d(in_channels, channels, kernel_size=3, padding=1),
                self.non_lin(),
                nn.Conv2d(channels, channels, kernel_size=3, padding=1),
                self.non_lin(),
                nn.MaxPool2d(kernel_size=2),
            ]
            in_channels = channels
        self.net = nn.Sequential(*layers)

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Applies the stages: ``[B, C, H, W] -> [B, C', H', W']``."""
        return {self.out_keys[0]: self.net(block_input[self.in_keys[0]])}

    def _repr_params(self) -> dict[str, Any]:
        return {"hidden_channels": self.hidden_channels, "non_lin": self.non_lin}
