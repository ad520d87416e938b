"""Transformer-style self-attention over a sequence (arXiv 1706.03762)."""

from __future__ import annotations

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, ShapesType, normalize_keys
from maze.perception.blocks.feed_forward.multi_head_attention import MultiHeadAttentionBlock
from torch import nn

__all__ = ["SelfAttentionSeqBlock"]


class SelfAttentionSeqBlock(MultiHeadAttentionBlock):
    """Multi-head self-attention over a ``[B, N, E]`` sequence followed by layer normalization.

    The output is ``LayerNorm(x + SelfAttention(x))`` with ``add_input_to_output`` (the
    Transformer's attention sub-layer), else ``LayerNorm(SelfAttention(x))``. in_keys are
    ``[sequence]`` or ``[sequence, mask]`` (mask ``[B, N]``, non-zero = valid element);
    out_keys are ``[output]`` or ``[output, attention_weights]`` (``[B, N, N]``).

    Args:
        in_keys: The sequence key and, optionally, the mask key.
        out_keys: The output key and, optionally, the attention weights key.
        in_shapes: ``(N, E)`` and, with a mask, ``(N,)``.
        num_heads: The number of heads (must divide E).
        dropout: Dropout on the attention weights.
        add_input_to_output: Whether to add the input before the normalization.
        bias: Whether the projections have biases.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        num_heads: int,
        dropout: float = 0.0,
        add_input_to_output: bool = True,
        bias: bool = True,
    ):
        keys = normalize_keys(in_keys, f"{type(self).__name__} in_keys")
        if len(keys) > 2:
            raise ConfigurationError(f"{type(self).__name__} takes 1 or 2 in_keys (sequence[, mask]), got {keys!r}")
        super().__init__(
            in_keys=keys,
            out_keys=out_keys,
            in_shapes=in_shapes,
            num_heads=num_heads,
            dropout=dropout,
            bias=bias,
            add_input_to_output=add_input_to_output,
            use_key_padding_mask=len(keys) == 2,
        )
        self.norm = nn.LayerNorm(self.in_shapes[0][-1])

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[B, N, E]`` (and ``[B, N]`` mask) to ``[B, N, E]`` (and weights ``[B, N, N]``)."""
        result = super().normalized_forward(block_input)
        result[self.out_keys[0]] = self.norm(result[self.out_keys[0]])
        return result
