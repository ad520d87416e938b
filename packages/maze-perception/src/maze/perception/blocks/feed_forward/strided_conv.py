"""Strided convolutions in one, two or three spatial dimensions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, Union

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, NonLinType, ShapesType, check_positive_ints, resolve_non_lin
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["StridedConvolutionBlock"]

PaddingType = Union[int, str, Sequence[int]]
"""Padding of one layer: an int, a tuple per spatial dim, or ``"same"``/``"valid"``."""

_CONV_CLASSES: dict[int, type[nn.Module]] = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}


class StridedConvolutionBlock(ShapeNormalizationBlock):
    """Subsequent convolutions with per-layer kernel, stride, dilation and padding.

    Maps ``[B, C, *spatial]`` (``convolution_dimension`` spatial dims) to
    ``[B, hidden_channels[-1], *spatial']``.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: The input shape ``(C, *spatial)`` without batch dimension.
        hidden_channels: The output channels of each layer.
        hidden_kernels: The kernel size of each layer.
        convolution_dimension: The number of spatial dimensions (1, 2 or 3).
        hidden_strides: The stride of each layer (default 1).
        hidden_dilations: The dilation of each layer (default 1).
        hidden_padding: The padding of each layer (default 0); ``"same"`` needs stride 1.
        padding_mode: ``"zeros"``, ``"reflect"``, ``"replicate"`` or ``"circular"`` (default zeros).
        non_lin: The activation class (or its dotted path) applied after every layer.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        hidden_channels: Sequence[int],
        hidden_kernels: Sequence[int],
        convolution_dimension: int = 2,
        hidden_strides: Optional[Sequence[int]] = None,
        hidden_dilations: Optional[Sequence[int]] = None,
        hidden_padding: Optional[Sequence[PaddingType]] = None,
        padding_mode: Optional[str] = None,
        non_lin: NonLinType = nn.ReLU,
    ):
        if convolution_dimension not in _CONV_CLASSES:
            raise ConfigurationError(
                f"{type(self).__name__}: convolution_dimension must be 1, 2 or 3, got {convolution_dimension!r}"
            )
        super().__init__(
            in_keys=in_keys,
            out_keys=out_keys,
            in_shapes=in_shapes,
            in_num_dims=convolution_dimension + 2,
            out_num_dims=convolution_dimension + 2,
        )
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        owner = type(self).__name__
        self.convolution_dimension = convolution_dimension
        self.hidden_channels = check_positive_ints(hidden_channels, "hidden_channels", owner)
        num_layers = len(self.hidden_channels)
        self.hidden_kernels = self._per_layer(hidden_kernels, None, "hidden_kernels", num_layers)
        self.hidden_strides = self._per_layer(hidden_strides, 1, "hidden_strides", num_layers)
        self.hidden_dilations = self._per_layer(hidden_dilations, 1, "hidden_dilations", num_layers)
        self.hidden_padding = self._per_layer(hidden_padding, 0, "hidden_padding", num_layers)
        self.padding_mode = padding_mode or "zeros"
        self.non_lin = resolve_non_lin(non_lin)
        conv_class = _CONV_CLASSES[convolution_dimension]
        layers: list[nn.Module] = []
        in_channels = self.in_shapes[0][-convolution_dimension - 1]
        for index, channels in enumerate(self.hidden_channels):
            layers += [
                conv_class(
                    in_channels,
                    channels,
                    kernel_size=self.hidden_kernels[index],
                    stride=self.hidden_strides[index],
                    dilation=self.hidden_dilations[index],
                    padding=self.hidden_padding[index],
                    padding_mode=self.padding_mode,
                ),
                self.non_lin(),
            ]
            in_channels = channels
        self.net = nn.Sequential(*layers)

    def _per_layer(self, values: Optional[Sequence[Any]], default: Any, what: str, num_layers: int) -> list[Any]:
        """Returns one value per layer, filling in ``default`` when ``values`` is None."""
        if values is None:
            if default is None:
                raise ConfigurationError(f"{type(self).__name__}: {what} is required (one entry per hidden layer)")
            return [default] * num_layers
        result = list(values)
        if len(result) != num_layers:
            raise ConfigurationError(
                f"{type(self).__name__}: {what}={result!r} needs one entry per hidden_channels entry ({num_layers})"
            )
        return result

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Applies the convolutions: ``[B, C, *spatial] -> [B, C', *spatial']``."""
        return {self.out_keys[0]: self.net(block_input[self.in_keys[0]])}

    def _repr_params(self) -> dict[str, Any]:
        return {
            "hidden_channels": self.hidden_channels,
            "hidden_kernels": self.hidden_kernels,
            "hidden_strides": self.hidden_strides,
            "non_lin": self.non_lin,
        }
