"""Masking of invalid actions in logits."""

from __future__ import annotations

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor

__all__ = ["ActionMaskingBlock"]


class ActionMaskingBlock(PerceptionBlock):
    """Sets the logits of invalid actions to the most negative value of their dtype.

    in_keys are ``[logits, mask]`` of the same shape; a zero (False) mask entry marks an
    invalid action, so a categorical distribution over the masked logits gives it
    probability zero.

    Args:
        in_keys: The logits key and the mask key.
        out_keys: One output key (the masked logits).
        in_shapes: The logits shape and the (equal) mask shape.
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.expect_key_counts(in_counts=(2,), out_counts=(1,))
        if self.in_shapes[0] != self.in_shapes[1]:
            raise ConfigurationError(
                f"{type(self).__name__}: logits {self.in_keys[0]!r} {self.in_shapes[0]} and mask "
                f"{self.in_keys[1]!r} {self.in_shapes[1]} need the same shape"
            )

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[*leading, *shape]`` logits and mask to ``[*leading, *shape]`` masked logits."""
        logits = fetch_tensor(block_input, self.in_keys[0], type(self).__name__)
        mask = fetch_tensor(block_input, self.in_keys[1], type(self).__name__)
        return {self.out_keys[0]: logits.masked_fill(mask == 0, torch.finfo(logits.dtype).min)}
