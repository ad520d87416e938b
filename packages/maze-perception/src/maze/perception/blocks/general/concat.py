"""Concatenation of several tensors along one dimension."""

from __future__ import annotations

from typing import Any

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor, negative_dim

__all__ = ["ConcatenationBlock"]


class ConcatenationBlock(PerceptionBlock):
    """Concatenates the inputs along ``concat_dim``.

    All inputs need the same rank and the same sizes outside ``concat_dim``, e.g.
    ``[(32,), (16,)] -> (48,)`` for ``concat_dim=-1``.

    Args:
        in_keys: The keys of the tensors to concatenate, in order.
        out_keys: One output key.
        in_shapes: One shape per input (without batch dims).
        concat_dim: The dimension of the shapes without batch dims (negative counts from the end).
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType, concat_dim: int = -1):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.expect_key_counts(in_counts=(len(self.in_keys),), out_counts=(1,))
        rank = len(self.in_shapes[0])
        self.concat_dim = concat_dim
        self._negative_dim = negative_dim(concat_dim, rank, "concat_dim", type(self).__name__)
        others = {
            shape[: rank + self._negative_dim] + shape[rank + self._negative_dim + 1 :] for shape in self.in_shapes
        }
        if any(len(shape) != rank for shape in self.in_shapes) or len(others) != 1:
            raise ConfigurationError(
                f"{type(self).__name__}: in_shapes {dict(zip(self.in_keys, self.in_shapes, strict=True))} must agree in rank and "
                f"in all dims except concat_dim={concat_dim}"
            )

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Concatenates ``[*leading, *shape_i]`` tensors along ``concat_dim``."""
        tensors = [fetch_tensor(block_input, key, type(self).__name__) for key in self.in_keys]
        if len(tensors) == 1:  # an identity: skip the copy torch.cat would make
            return {self.out_keys[0]: tensors[0]}
        return {self.out_keys[0]: torch.cat(tensors, dim=self._negative_dim)}

    def _repr_params(self) -> dict[str, Any]:
        return {"concat_dim": self.concat_dim}
