"""A stack of fully connected layers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from maze.perception.blocks.base import (
    KeysType,
    NonLinType,
    ShapesType,
    call_module,
    check_positive_ints,
    resolve_non_lin,
)
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["DenseBlock"]


class DenseBlock(ShapeNormalizationBlock):
    """Subsequent dense layers, each followed by the non-linearity.

    Maps ``[B, F]`` to ``[B, hidden_units[-1]]``; an input shape ``(T, F)`` is processed
    time-distributed to ``(T, hidden_units[-1])``.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: The input shape ``(..., F)`` without batch dimension.
        hidden_units: The number of units of each layer.
        non_lin: The activation class (or its dotted path) applied after every layer.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        hidden_units: Sequence[int],
        non_lin: NonLinType = nn.ReLU,
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes, in_num_dims=2, out_num_dims=2)
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        self.hidden_units = check_positive_ints(hidden_units, "hidden_units", type(self).__name__)
        self.non_lin = resolve_non_lin(non_lin)
        layers: list[nn.Module] = []
        in_features = self.in_shapes[0][-1]
        for units in self.hidden_units:
            layers += [nn.Linear(in_features, units), self.non_lin()]
            in_features = units
        self.net = nn.Sequential(*layers)

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Applies the layers: ``[B, F] -> [B, hidden_units[-1]]``."""
        return {self.out_keys[0]: call_module(self.net, block_input[self.in_keys[0]])}

    def _repr_params(self) -> dict[str, Any]:
        return {"hidden_units": self.hidden_units, "non_lin": self.non_lin}
