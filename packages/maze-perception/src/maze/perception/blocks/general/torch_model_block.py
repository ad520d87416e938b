"""Shape normalization for a plain dict-in/dict-out torch module."""

from __future__ import annotations

from typing import Any

import torch
from maze.perception.blocks.base import KeysType, ShapesType, fetch_tensor
from maze.perception.blocks.shape_normalization import NumDimsType, ShapeNormalizationBlock
from torch import nn

__all__ = ["TorchModelBlock"]


class TorchModelBlock(ShapeNormalizationBlock):
    """Wraps an ``nn.Module`` that maps a tensor dict to a tensor dict into a perception block.

    The wrapped ``net`` sees its inputs with exactly ``in_num_dims`` dimensions (batch
    first), whatever leading dims the caller uses, and must return the ``out_keys`` with
    ``out_num_dims`` dimensions.

    Args:
        in_keys: The keys passed to ``net``.
        out_keys: The keys taken from the output of ``net``.
        in_shapes: One shape per input key (without batch dims).
        in_num_dims: The rank (with batch dim) ``net`` expects, for all inputs or one per input.
        out_num_dims: The rank (with batch dim) ``net`` returns, for all outputs or one per output.
        net: The wrapped module.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        in_num_dims: NumDimsType,
        out_num_dims: NumDimsType,
        net: nn.Module,
    ):
        super().__init__(
            in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes, in_num_dims=in_num_dims, out_num_dims=out_num_dims
        )
        self.net = net

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Calls ``net`` and keeps the ``out_keys`` of its result."""
        output = self.net(block_input)
        owner = f"{type(self).__name__} ({type(self.net).__name__} output)"
        return {key: fetch_tensor(output, key, owner) for key in self.out_keys}

    def _repr_params(self) -> dict[str, Any]:
        return {"net": type(self.net).__name__}
