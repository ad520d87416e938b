"""Selecting several indices of one dimension."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor, negative_dim

__all__ = ["MultiIndexSlicingBlock"]


class MultiIndexSlicingBlock(PerceptionBlock):
    """Keeps the entries ``select_idxs`` of dimension ``select_dim`` (in the given order).

    The dimension stays, with ``len(select_idxs)`` entries: ``(N, F)`` with
    ``select_dim=0, select_idxs=[0, 2]`` gives ``(2, F)``.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: The input shape without batch dims.
        select_dim: The dimension of that shape (negative counts from the end).
        select_idxs: One index or a list of indices (negative count from the end).
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        select_dim: int,
        select_idxs: Union[int, Sequence[int]],
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        shape = self.in_shapes[0]
        self.select_dim = select_dim
        self._negative_dim = negative_dim(select_dim, len(shape), "select_dim", type(self).__name__)
        size = shape[self._negative_dim]
        self.select_idxs = [select_idxs] if isinstance(select_idxs, int) else list(select_idxs)
        if not self.select_idxs or not all(-size <= index < size for index in self.select_idxs):
            raise ConfigurationError(
                f"{type(self).__name__}: select_idxs={select_idxs!r} must be indices into dim {select_dim} (size "
                f"{size}) of {shape}"
            )
        self.register_buffer("_index", torch.tensor([index % size for index in self.select_idxs]), persistent=False)

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[*leading, ..., N, ...] -> [*leading, ..., len(select_idxs), ...]``."""
        tensor = fetch_tensor(block_input, self.in_keys[0], type(self).__name__)
        return {self.out_keys[0]: tensor.index_select(tensor.dim() + self._negative_dim, self._index)}

    def _repr_params(self) -> dict[str, Any]:
        return {"select_dim": self.select_dim, "select_idxs": self.select_idxs}
