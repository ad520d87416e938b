"""Self-attention over the positions of a feature map (SAGAN, arXiv 1805.08318)."""

from __future__ import annotations

from typing import Any

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, ShapesType, normalize_keys
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["SelfAttentionConvBlock"]


class SelfAttentionConvBlock(ShapeNormalizationBlock):
    """Every position of a ``[B, C, H, W]`` feature map attends to every other position.

    Queries and keys are 1x1 convolutions to ``embedding_dim`` channels, values a 1x1
    convolution to C channels. With ``add_input_to_output`` the result is
    ``gamma * attention_output + input`` with a learned ``gamma`` that starts at zero, so the
    block starts as the identity. out_keys are ``[output]`` (``[B, C, H, W]``) or
    ``[output, attention]`` (attention ``[B, H*W, H*W]``).

    Args:
        in_keys: One input key.
        out_keys: The output key and, optionally, the attention map key.
        in_shapes: ``(C, H, W)``.
        embedding_dim: The channels of queries and keys.
        add_input_to_output: Whether to add the (gated) result to the input.
        bias: Whether the 1x1 convolutions have biases.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        embedding_dim: int,
        add_input_to_output: bool = True,
        bias: bool = False,
    ):
        num_out = len(normalize_keys(out_keys, f"{type(self).__name__} out_keys"))
        super().__init__(
            in_keys=in_keys,
            out_keys=out_keys,
            in_shapes=in_shapes,
            in_num_dims=4,
            out_num_dims=[4] + [3] * (num_out - 1),
        )
        self.expect_key_counts(in_counts=(1,), out_counts=(1, 2))
        if len(self.in_shapes[0]) != 3:
            raise ConfigurationError(f"{type(self).__name__}: in_shapes {self.in_shapes[0]} must be (C, H, W)")
        channels = self.in_shapes[0][0]
        self.embedding_dim = embedding_dim
        self.add_input_to_output = add_input_to_output
        self.query = nn.Conv2d(channels, embedding_dim, kernel_size=1, bias=bias)
        self.key = nn.Conv2d(channels, embedding_dim, kernel_size=1, bias=bias)
        self.value = nn.Conv2d(channels, channels, kernel_size=1, bias=bias)
        self.gamma = nn.Parameter(torch.zeros(1)) if add_input_to_output else None

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[B, C, H, W]`` to ``[B, C, H, W]`` (and the attention ``[B, H*W, H*W]``)."""
        features = block_input[self.in_keys[0]]
        batch, channels, height, width = features.shape
        query = self.query(features).flatten(start_dim=2).transpose(1, 2)  # [B, N, E]
        key = self.key(features).flatten(start_dim=2)  # [B, E, N]
        attention = torch.softmax(torch.bmm(query, key), dim=-1)  # [B, N(query), N(key)]
        value = self.value(features).flatten(start_dim=2)  # [B, C, N]
        output = torch.bmm(value, attention.transpose(1, 2)).reshape(batch, channels, height, width)
        if self.gamma is not None:
            output = self.gamma * output + features
        result = {self.out_keys[0]: output}
        if len(self.out_keys) == 2:
            result[self.out_keys[1]] = attention
        return result

    def _repr_params(self) -> dict[str, Any]:
        return {"embedding_dim": self.embedding_dim, "add_input_to_output": self.add_input_to_output}
