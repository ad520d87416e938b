"""Selecting one index of one dimension."""

from __future__ import annotations

from typing import Any

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor, negative_dim

__all__ = ["SliceBlock"]


class SliceBlock(PerceptionBlock):
    """Selects index ``slice_idx`` of dimension ``slice_dim``; that dimension disappears.

    E.g. ``(T, F)`` with ``slice_dim=-2, slice_idx=-1`` gives the last step ``(F,)``.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: The input shape without batch dims.
        slice_dim: The dimension of that shape (negative counts from the end).
        slice_idx: The index to keep (negative counts from the end).
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType, slice_dim: int, slice_idx: int):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        shape = self.in_shapes[0]
        self.slice_dim = slice_dim
        self._negative_dim = negative_dim(slice_dim, len(shape), "slice_dim", type(self).__name__)
        if not -shape[self._negative_dim] <= slice_idx < shape[self._negative_dim]:
            raise ConfigurationError(
                f"{type(self).__name__}: slice_idx={slice_idx} is out of range for dim {slice_dim} of {shape}"
            )
        self.slice_idx = slice_idx

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[*leading, *shape] -> [*leading, *shape without slice_dim]``."""
        tensor = fetch_tensor(block_input, self.in_keys[0], type(self).__name__)
        return {self.out_keys[0]: tensor.select(self._negative_dim, self.slice_idx)}

    def _repr_params(self) -> dict[str, Any]:
        return {"slice_dim": self.slice_dim, "slice_idx": self.slice_idx}
