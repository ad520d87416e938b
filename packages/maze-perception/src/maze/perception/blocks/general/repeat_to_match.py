"""Repeating a tensor along a new dimension to match the size of a reference tensor."""

from __future__ import annotations

from typing import Any

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor, negative_dim

__all__ = ["RepeatToMatchBlock"]


class RepeatToMatchBlock(PerceptionBlock):
    """Inserts a dimension at ``repeat_at_idx`` and repeats the input to the reference's size there.

    in_keys are ``[input, reference]``. E.g. an input ``(F,)``, a reference ``(N, G)`` and
    ``repeat_at_idx=-2`` give ``(N, F)``: every one of the N entries gets a copy of the input
    (useful to pair a global feature with each element of a set).

    Args:
        in_keys: The input key and the reference key.
        out_keys: One output key.
        in_shapes: The input shape and the reference shape (without batch dims).
        repeat_at_idx: Where the new dimension sits in the output shape (negative counts from
            the end); the reference is read at the same position counted from its end.
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType, repeat_at_idx: int):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.expect_key_counts(in_counts=(2,), out_counts=(1,))
        input_shape, reference_shape = self.in_shapes
        self.repeat_at_idx = repeat_at_idx
        self._negative_dim = negative_dim(repeat_at_idx, len(input_shape) + 1, "repeat_at_idx", type(self).__name__)
        if -self._negative_dim > len(reference_shape):
            raise ConfigurationError(
                f"{type(self).__name__}: reference shape {reference_shape} has no dim {self._negative_dim} to match "
                f"repeat_at_idx={repeat_at_idx}"
            )

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[*leading, *input_shape]`` to ``[*leading, *input_shape with the repeated dim inserted]``."""
        tensor = fetch_tensor(block_input, self.in_keys[0], type(self).__name__)
        reference = fetch_tensor(block_input, self.in_keys[1], type(self).__name__)
        expanded = tensor.unsqueeze(self._negative_dim)
        sizes = [-1] * expanded.dim()
        sizes[self._negative_dim] = reference.shape[self._negative_dim]
        return {self.out_keys[0]: expanded.expand(*sizes)}

    def _repr_params(self) -> dict[str, Any]:
        return {"repeat_at_idx": self.repeat_at_idx}
