"""Flattening of the trailing dimensions."""

from __future__ import annotations

from typing import Any

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor

__all__ = ["FlattenBlock"]


class FlattenBlock(PerceptionBlock):
    """Flattens the last ``num_flatten_dims`` dimensions into one.

    E.g. ``(C, H, W)`` with ``num_flatten_dims=3`` becomes ``(C*H*W,)``; leading batch/time
    dimensions are kept.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: The input shape without batch dims.
        num_flatten_dims: How many trailing dimensions to flatten (at most the input rank).
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType, num_flatten_dims: int):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        if not 1 <= num_flatten_dims <= len(self.in_shapes[0]):
            raise ConfigurationError(
                f"{type(self).__name__}: num_flatten_dims={num_flatten_dims} must be between 1 and the rank of "
                f"in_shapes {self.in_shapes[0]}"
            )
        self.num_flatten_dims = num_flatten_dims

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[*leading, *kept, *flattened] -> [*leading, *kept, prod(flattened)]``."""
        tensor = fetch_tensor(block_input, self.in_keys[0], type(self).__name__)
        return {self.out_keys[0]: tensor.flatten(start_dim=-self.num_flatten_dims)}

    def _repr_params(self) -> dict[str, Any]:
        return {"num_flatten_dims": self.num_flatten_dims}
