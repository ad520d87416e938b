"""Multi-head attention (arXiv 1706.03762) on top of ``torch.nn.MultiheadAttention``."""

from __future__ import annotations

from typing import Any, Optional

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, ShapesType, normalize_keys
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["MultiHeadAttentionBlock", "masked_attention"]


def masked_attention(
    attention: nn.MultiheadAttention,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    valid_mask: Optional[torch.Tensor],
    need_weights: bool,
) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
    """Runs batch-first multi-head attention with an optional mask of valid keys.

    A query whose keys are all masked gets zeros (instead of NaN) as output and weights.

    Args:
        attention: A ``batch_first`` multi-head attention module.
        query: ``[B, Lq, E]``.
        key: ``[B, Lk, kdim]``.
        value: ``[B, Lk, vdim]``.
        valid_mask: ``[B, Lk]``; non-zero (True) marks keys that may be attended to.
        need_weights: Whether to return the head-averaged attention weights.

    Returns:
        The output ``[B, Lq, E]`` and the weights ``[B, Lq, Lk]`` (None unless requested).
    """
    if valid_mask is None:
        return attention(query, key, value, need_weights=need_weights)
    ignore = valid_mask == 0
    nothing_valid = ignore.all(dim=-1)
    ignore = ignore & ~nothing_valid.unsqueeze(-1)
    output, weights = attention(query, key, value, key_padding_mask=ignore, need_weights=need_weights)
    output = output.masked_fill(nothing_valid[:, None, None], 0.0)
    if weights is not None:
        weights = weights.masked_fill(nothing_valid[:, None, None], 0.0)
    return output, weights


class MultiHeadAttentionBlock(ShapeNormalizationBlock):
    """Multi-head attention between a query sequence and a key/value sequence.

    in_keys are ``[query]`` (self-attention) or ``[query, key, value]``, followed by a mask
    key when ``use_key_padding_mask`` is set. Shapes: query ``[B, Lq, E]``, key
    ``[B, Lk, kdim]``, value ``[B, Lk, vdim]``, mask ``[B, Lk]`` (non-zero = valid key,
    zero = padding that is ignored). out_keys are ``[output]`` (``[B, Lq, E]``) or
    ``[output, attention_weights]`` (weights ``[B, Lq, Lk]``, averaged over the heads).

    Args:
        in_keys: See above.
        out_keys: See above.
        in_shapes: ``(Lq, E)``, then ``(Lk, kdim)``, ``(Lk, vdim)`` and ``(Lk,)`` as the keys require.
        num_heads: The number of heads (must divide E).
        dropout: Dropout on the attention weights.
        bias: Whether the projections have biases.
        add_input_to_output: Whether the query is added to the output (residual connection).
        use_key_padding_mask: Whether the last in_key is a mask of valid keys.
        add_bias_kv: Whether learned bias vectors are appended to the key and value sequences.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_input_to_output: bool = True,
        use_key_padding_mask: bool = False,
        add_bias_kv: bool = False,
    ):
        num_in = len(normalize_keys(in_keys, f"{type(self).__name__} in_keys"))
        super().__init__(
            in_keys=in_keys,
            out_keys=out_keys,
            in_shapes=in_shapes,
            in_num_dims=[3] * (num_in - 1) + [2 if use_key_padding_mask else 3],
            out_num_dims=3,
        )
        extra = 1 if use_key_padding_mask else 0
        self.expect_key_counts(in_counts=(1 + extra, 3 + extra), out_counts=(1, 2))
        self.num_heads = num_heads
        self.dropout = dropout
        self.add_input_to_output = add_input_to_output
        self.use_key_padding_mask = use_key_padding_mask
        sequence_shapes = self.in_shapes[: num_in - extra]
        embed_dim = sequence_shapes[0][-1]
        if any(len(shape) != 2 for shape in sequence_shapes) or embed_dim % num_heads:
            raise ConfigurationError(
                f"{type(self).__name__}: in_shapes {self.in_shapes} must give (length, features) sequences whose "
                f"query features ({embed_dim}) are divisible by num_heads={num_heads}"
            )
        self.attention = nn.MultiheadAttention(
            embed_dim=embed_dim,
            num_heads=num_heads,
            dropout=dropout,
            bias=bias,
            add_bias_kv=add_bias_kv,
            kdim=sequence_shapes[-2][-1] if len(sequence_shapes) == 3 else None,
            vdim=sequence_shapes[-1][-1],
            batch_first=True,
        )

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Attends: query ``[B, Lq, E]`` to output ``[B, Lq, E]`` (and weights ``[B, Lq, Lk]``)."""
        tensors = [block_input[key] for key in self.in_keys]
        valid_mask = tensors.pop() if self.use_key_padding_mask else None
        query = tensors[0]
        key, value = (query, query) if len(tensors) == 1 else tensors[1:]
        need_weights = len(self.out_keys) == 2
        output, weights = masked_attention(self.attention, query, key, value, valid_mask, need_weights)
        if self.add_input_to_output:
            output = output + query
        result = {self.out_keys[0]: output}
        if need_weights:
            result[self.out_keys[1]] = weights
        return result

    def _repr_params(self) -> dict[str, Any]:
        return {
            "num_heads": self.num_heads,
            "add_input_to_output": self.add_input_to_output,
            "use_key_padding_mask": self.use_key_padding_mask,
        }
