"""A linear output head (logits or values)."""

from __future__ import annotations

from typing import Any

import torch
from maze.perception.blocks.base import KeysType, ShapesType, call_module, check_positive_ints
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["LinearOutputBlock"]


class LinearOutputBlock(ShapeNormalizationBlock):
    """One linear layer without activation: ``[B, F] -> [B, output_units]``.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: ``(..., F)`` (extra dims are processed time-distributed).
        output_units: The number of outputs (e.g. the logits of an action head, or 1 for a value).
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType, output_units: int):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes, in_num_dims=2, out_num_dims=2)
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        self.output_units = check_positive_ints(output_units, "output_units", type(self).__name__)[0]
        self.net = nn.Linear(self.in_shapes[0][-1], self.output_units)

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[B, F] -> [B, output_units]``."""
        return {self.out_keys[0]: call_module(self.net, block_input[self.in_keys[0]])}

    def _repr_params(self) -> dict[str, Any]:
        return {"output_units": self.output_units}
