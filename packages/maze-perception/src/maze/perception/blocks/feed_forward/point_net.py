"""PointNet feature embedding of a (variable sized) point set (Qi et al., arXiv 1612.00593)."""

from __future__ import annotations

from typing import Any, Optional

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, NonLinType, ShapesType, normalize_keys, resolve_non_lin
from maze.perception.blocks.general.masked_global_pooling import check_pooling_func, masked_pool
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["PointNetFeatureBlock", "PointNetFeatureTransform"]

_POINT_FEATURES = 64
_GLOBAL_FEATURES = 128


class PointNetFeatureTransform(nn.Module):
    """Predicts a per-set ``[D, D]`` matrix (initialised to the identity) and applies it to each point.

    Args:
        features: The point feature size D.
        non_lin: The activation class.
        pooling_func: How the set is pooled to predict the matrix.
    """

    def __init__(self, features: int, non_lin: type[nn.Module], pooling_func: str):
        super().__init__()
        self.features = features
        self.pooling_func = pooling_func
        self.point_mlp = nn.Sequential(
            nn.Linear(features, _POINT_FEATURES), non_lin(), nn.Linear(_POINT_FEATURES, _GLOBAL_FEATURES), non_lin()
        )
        self.matrix = nn.Linear(_GLOBAL_FEATURES, features * features)
        nn.init.zeros_(self.matrix.weight)
        with torch.no_grad():
            self.matrix.bias.copy_(torch.eye(features).flatten())

    def forward(self, points: torch.Tensor, mask: Optional[torch.Tensor]) -> torch.Tensor:
        """Transforms ``[B, N, D]`` point features with a learned ``[B, D, D]`` matrix to ``[B, N, D]``."""
        pooled = masked_pool(self.point_mlp(points), mask, self.pooling_func, dim=1)
        matrix = self.matrix(pooled).reshape(-1, self.features, self.features)
        return torch.bmm(points, matrix)


class PointNetFeatureBlock(ShapeNormalizationBlock):
    """Embeds a set of points into one fixed-size vector.

    Every point passes a shared MLP (``F -> 64``), an optional learned feature transform,
    and a second shared MLP (``64 -> 128 -> embedding_dim``); the set is then pooled. in_keys
    are ``[points]`` (``[B, N, F]``) or ``[points, mask]`` (mask ``[B, N]``, non-zero = valid
    point), so padded sets of different sizes can share a batch. The output is
    ``[B, embedding_dim]``.

    Args:
        in_keys: The points key and, optionally, the mask key.
        out_keys: One output key.
        in_shapes: ``(N, F)`` and, with a mask, ``(N,)``.
        embedding_dim: The size of the set embedding.
        pooling_func_name: ``"max"`` (default, as in PointNet), ``"mean"`` or ``"sum"``.
        use_feature_transform: Whether to learn a per-set transform of the point features.
        non_lin: The activation class (or its dotted path).
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        embedding_dim: int,
        pooling_func_name: str = "max",
        use_feature_transform: bool = False,
        non_lin: NonLinType = nn.ReLU,
    ):
        num_in = len(normalize_keys(in_keys, f"{type(self).__name__} in_keys"))
        super().__init__(
            in_keys=in_keys,
            out_keys=out_keys,
            in_shapes=in_shapes,
            in_num_dims=[3] + [2] * (num_in - 1),
            out_num_dims=2,
        )
        self.expect_key_counts(in_counts=(1, 2), out_counts=(1,))
        if len(self.in_shapes[0]) != 2:
            raise ConfigurationError(f"{type(self).__name__}: points in_shape {self.in_shapes[0]} must be (N, F)")
        self.embedding_dim = embedding_dim
        self.pooling_func_name = check_pooling_func(pooling_func_name, type(self).__name__)
        self.use_feature_transform = use_feature_transform
        self.non_lin = resolve_non_lin(non_lin)
        self.input_mlp = nn.Sequential(nn.Linear(self.in_shapes[0][-1], _POINT_FEATURES), self.non_lin())
        self.feature_transform = (
            PointNetFeatureTransform(_POINT_FEATURES, self.non_lin, self.pooling_func_name)
            if use_feature_transform
            else None
        )
        self.output_mlp = nn.Sequential(
            nn.Linear(_POINT_FEATURES, _GLOBAL_FEATURES), self.non_lin(), nn.Linear(_GLOBAL_FEATURES, embedding_dim)
        )

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Embeds ``[B, N, F]`` points (and an optional ``[B, N]`` mask) to ``[B, embedding_dim]``."""
        points = self.input_mlp(block_input[self.in_keys[0]])
        mask = block_input[self.in_keys[1]].unsqueeze(-1) if len(self.in_keys) == 2 else None
        if self.feature_transform is not None:
            points = self.feature_transform(points, mask)
        return {self.out_keys[0]: masked_pool(self.output_mlp(points), mask, self.pooling_func_name, dim=1)}

    def _repr_params(self) -> dict[str, Any]:
        return {
            "embedding_dim": self.embedding_dim,
            "pooling_func_name": self.pooling_func_name,
            "use_feature_transform": self.use_feature_transform,
            "non_lin": self.non_lin,
        }
