"""Multi-head graph attention (Velickovic et al., arXiv 1710.10903) in pure torch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, NonLinType, ShapesType, check_positive_ints, resolve_non_lin
from maze.perception.blocks.feed_forward.graph_conv import add_self_loops, check_graph_shapes
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn
from torch.nn import functional

__all__ = ["GraphAttentionBlock", "GraphAttentionLayer"]


class GraphAttentionLayer(nn.Module):
    """One multi-head graph attention layer; the heads' outputs are concatenated.

    Args:
        in_features: The node feature size F.
        out_features: The output size (split evenly over the heads).
        num_heads: The number of attention heads.
        attention_dropout: Dropout applied to the attention weights.
        negative_slope: The LeakyReLU slope of the attention scores.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        num_heads: int,
        attention_dropout: float = 0.0,
        negative_slope: float = 0.2,
    ):
        super().__init__()
        self.num_heads = num_heads
        self.head_features = out_features // num_heads
        self.projection = nn.Linear(in_features, out_features, bias=False)
        self.attention_source = nn.Parameter(torch.empty(num_heads, self.head_features))
        self.attention_target = nn.Parameter(torch.empty(num_heads, self.head_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.dropout = nn.Dropout(attention_dropout)
        self.negative_slope = negative_slope
        nn.init.xavier_uniform_(self.attention_source)
        nn.init.xavier_uniform_(self.attention_target)

    def forward(self, features: torch.Tensor, adjacency: torch.Tensor) -> torch.Tensor:
        """Attends from every node to its neighbours (and itself).

        Args:
            features: ``[B, N, F]`` node features.
            adjacency: ``[B, N, N]``; non-zero ``adjacency[b, i, j]`` lets node i attend to j.

        Returns:
            ``[B, N, out_features]``.
        """
        batch, nodes, _ = features.shape
        projected = self.projection(features).reshape(batch, nodes, self.num_heads, self.head_features)
        target_score = (projected * self.attention_target).sum(-1)  # [B, N, H]
        source_score = (projected * self.attention_source).sum(-1)  # [B, N, H]
        scores = functional.leaky_relu(
            target_score.unsqueeze(2) + source_score.unsqueeze(1), self.negative_slope
        )  # [B, N(target), N(source), H]
        edges = add_self_loops(adjacency) != 0
        scores = scores.masked_fill(~edges.unsqueeze(-1), float("-inf"))
        weights = self.dropout(torch.softmax(scores, dim=2))
        attended = torch.einsum("bijh,bjhd->bihd", weights, projected)
        return attended.reshape(batch, nodes, -1) + self.bias


class GraphAttentionBlock(ShapeNormalizationBlock):
    """Subsequent multi-head graph attention layers, each followed by the non-linearity.

    in_keys are ``[node_features, adjacency]``: ``[B, N, F]`` and ``[B, N, N]``; the output
    is ``[B, N, hidden_features[-1]]``. Every node always attends to itself.

    Args:
        in_keys: The node feature key and the adjacency key.
        out_keys: One output key.
        in_shapes: ``[(N, F), (N, N)]``.
        hidden_features: The output features of each layer (divisible by its head count).
        num_heads: The heads of each layer (one int for all layers).
        non_lin: The activation class (or its dotted path) applied after every layer.
        attention_dropout: Dropout on the attention weights.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        hidden_features: Sequence[int],
        num_heads: Union[int, Sequence[int]] = 1,
        non_lin: NonLinType = nn.ReLU,
        attention_dropout: float = 0.0,
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes, in_num_dims=3, out_num_dims=3)
        self.expect_key_counts(in_counts=(2,), out_counts=(1,))
        check_graph_shapes(self)
        owner = type(self).__name__
        self.hidden_features = check_positive_ints(hidden_features, "hidden_features", owner)
        heads = [num_heads] * len(self.hidden_features) if isinstance(num_heads, int) else num_heads
        self.num_heads = check_positive_ints(heads, "num_heads", owner)
        if len(self.num_heads) != len(self.hidden_features) or any(
            features % heads for features, heads in zip(self.hidden_features, self.num_heads, strict=True)
        ):
            raise ConfigurationError(
                f"{owner}: num_heads={self.num_heads} needs one entry per layer, each dividing its "
                f"hidden_features entry {self.hidden_features}"
            )
        self.non_lin = resolve_non_lin(non_lin)
        sizes = [self.in_shapes[0][-1], *self.hidden_features]
        self.layers = nn.ModuleList(
            GraphAttentionLayer(n_in, n_out, heads, attention_dropout)
            for n_in, n_out, heads in zip(sizes[:-1], sizes[1:], self.num_heads, strict=True)
        )
        self.activations = nn.ModuleList(self.non_lin() for _ in self.hidden_features)

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[B, N, F]`` features and ``[B, N, N]`` adjacency to ``[B, N, hidden_features[-1]]``."""
        features = block_input[self.in_keys[0]]
        adjacency = block_input[self.in_keys[1]]
        for layer, activation in zip(self.layers, self.activations, strict=True):
            features = activation(layer(features, adjacency))
        return {self.out_keys[0]: features}

    def _repr_params(self) -> dict[str, Any]:
        return {"hidden_features": self.hidden_features, "num_heads": self.num_heads, "non_lin": self.non_lin}
