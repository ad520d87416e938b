"""Correlation (dot products) between features and a set of features."""

from __future__ import annotations

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, ShapesType, normalize_keys, normalize_shapes
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock

__all__ = ["CorrelationBlock"]


class CorrelationBlock(ShapeNormalizationBlock):
    """Dot products of each left feature vector with each right feature vector.

    in_keys are ``[left, right]``. The right input is a set ``(M, F)``; the left input is
    one vector ``(F,)`` (output ``(M,)``: its score against every set element) or a set
    ``(N, F)`` (output ``(N, M)``: all pairwise scores).

    Args:
        in_keys: The left and the right key.
        out_keys: One output key.
        in_shapes: ``(F,)`` or ``(N, F)``, then ``(M, F)``.
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType):
        keys = normalize_keys(in_keys, f"{type(self).__name__} in_keys")
        left_rank = len(normalize_shapes(in_shapes, len(keys), type(self).__name__)[0])
        super().__init__(
            in_keys=in_keys,
            out_keys=out_keys,
            in_shapes=in_shapes,
            in_num_dims=[left_rank + 1] + [3] * (len(keys) - 1),
            out_num_dims=left_rank + 1,
        )
        self.expect_key_counts(in_counts=(2,), out_counts=(1,))
        left, right = self.in_shapes
        if len(left) not in (1, 2) or len(right) != 2 or left[-1] != right[-1]:
            raise ConfigurationError(
                f"{type(self).__name__}: in_shapes {self.in_shapes} must be (F,) or (N, F) for {self.in_keys[0]!r} "
                f"and (M, F) for {self.in_keys[1]!r} with the same F"
            )
        self._single_vector = len(left) == 1

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[B, N, F]`` (or ``[B, F]``) and ``[B, M, F]`` to ``[B, N, M]`` (or ``[B, M]``)."""
        left = block_input[self.in_keys[0]]
        right = block_input[self.in_keys[1]]
        if self._single_vector:
            return {self.out_keys[0]: torch.einsum("bf,bmf->bm", left, right)}
        return {self.out_keys[0]: torch.einsum("bnf,bmf->bnm", left, right)}
