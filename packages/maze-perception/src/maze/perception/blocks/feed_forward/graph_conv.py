"""Graph convolutions (Kipf & Welling style) over a dense adjacency matrix, in pure torch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, NonLinType, ShapesType, check_positive_ints, resolve_non_lin
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["GraphConvBlock", "add_self_loops", "aggregation_matrix"]

_AGGREGATIONS = ("sum", "mean", "symmetric")


def add_self_loops(adjacency: torch.Tensor) -> torch.Tensor:
    """Returns the adjacency with ones on the diagonal.

    Args:
        adjacency: ``[B, N, N]``, non-zero entries mark edges.

    Returns:
        ``[B, N, N]`` with ``adjacency[:, i, i] = 1``.
    """
    eye = torch.eye(adjacency.shape[-1], dtype=adjacency.dtype, device=adjacency.device)
    return torch.maximum(adjacency, eye.expand_as(adjacency))


def aggregation_matrix(adjacency: torch.Tensor, node2node_aggr: str, self_loops: bool) -> torch.Tensor:
    """Turns an adjacency matrix into the matrix that aggregates neighbour features.

    Args:
        adjacency: ``[B, N, N]`` edge weights (row ``i`` lists the neighbours of node ``i``).
        node2node_aggr: ``"sum"`` (raw weights), ``"mean"`` (rows normalized to sum one) or
            ``"symmetric"`` (``D^-1/2 A D^-1/2``, as in Kipf & Welling).
        self_loops: Whether every node also aggregates its own features.

    Returns:
        ``[B, N, N]`` aggregation weights.
    """
    matrix = add_self_loops(adjacency) if self_loops else adjacency
    if node2node_aggr == "sum":
        return matrix
    degree = matrix.sum(dim=-1).clamp(min=1e-6)
    if node2node_aggr == "mean":
        return matrix / degree.unsqueeze(-1)
    inv_sqrt = degree.rsqrt()
    return inv_sqrt.unsqueeze(-1) * matrix * inv_sqrt.unsqueeze(-2)


class GraphConvBlock(ShapeNormalizationBlock):
    """Subsequent graph convolutions ``H' = non_lin(Agg(A) @ H @ W + b)``.

    in_keys are ``[node_features, adjacency]``: node features ``[B, N, F]`` and a dense
    adjacency ``[B, N, N]``; the output is ``[B, N, hidden_features[-1]]``.

    Args:
        in_keys: The node feature key and the adjacency key.
        out_keys: One output key.
        in_shapes: ``[(N, F), (N, N)]``.
        hidden_features: The output features of each layer.
        bias: Whether the layers have a bias.
        non_lin: The activation class (or its dotted path) applied after every layer.
        node2node_aggr: How neighbour features are combined: ``"sum"``, ``"mean"`` or ``"symmetric"``.
        self_loops: Whether each node includes its own features in the aggregation.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        hidden_features: Sequence[int],
        bias: bool = True,
        non_lin: NonLinType = nn.ReLU,
        node2node_aggr: str = "symmetric",
        self_loops: bool = True,
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes, in_num_dims=3, out_num_dims=3)
        self.expect_key_counts(in_counts=(2,), out_counts=(1,))
        check_graph_shapes(self)
        if node2node_aggr not in _AGGREGATIONS:
            raise ConfigurationError(
                f"{type(self).__name__}: node2node_aggr={node2node_aggr!r} is not one of {_AGGREGATIONS}"
            )
        self.hidden_features = check_positive_ints(hidden_features, "hidden_features", type(self).__name__)
        self.bias = bias
        self.non_lin = resolve_non_lin(non_lin)
        self.node2node_aggr = node2node_aggr
        self.self_loops = self_loops
        sizes = [self.in_shapes[0][-1], *self.hidden_features]
        self.layers = nn.ModuleList(
            nn.Linear(n_in, n_out, bias=bias) for n_in, n_out in zip(sizes[:-1], sizes[1:], strict=True)
        )
        self.activations = nn.ModuleList(self.non_lin() for _ in self.hidden_features)

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[B, N, F]`` features and ``[B, N, N]`` adjacency to ``[B, N, hidden_features[-1]]``."""
        features = block_input[self.in_keys[0]]
        aggregation = aggregation_matrix(
            block_input[self.in_keys[1]].to(features.dtype), self.node2node_aggr, self.self_loops
        )
        for layer, activation in zip(self.layers, self.activations, strict=True):
            features = activation(torch.bmm(aggregation, layer(features)))
        return {self.out_keys[0]: features}

    def _repr_params(self) -> dict[str, Any]:
        return {"hidden_features": self.hidden_features, "node2node_aggr": self.node2node_aggr, "non_lin": self.non_lin}


def check_graph_shapes(block: ShapeNormalizationBlock) -> None:
    """Checks that a graph block got node features ``(N, F)`` and an adjacency ``(N, N)``.

    Raises:
        ConfigurationError: Naming the block and the shapes.
    """
    features, adjacency = block.in_shapes
    if len(features) != 2 or adjacency != (features[0], features[0]):
        raise ConfigurationError(
            f"{type(block).__name__}: in_shapes {block.in_shapes} must be [(N, F), (N, N)] for node features "
            f"{block.in_keys[0]!r} and adjacency {block.in_keys[1]!r}"
        )
