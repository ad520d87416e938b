"""Global pooling over one dimension, optionally restricted to the entries a mask marks valid."""

from __future__ import annotations

from typing import Any, Optional

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor, negative_dim

__all__ = ["POOLING_FUNCTIONS", "MaskedGlobalPoolingBlock", "masked_pool"]

POOLING_FUNCTIONS = ("mean", "sum", "max")
"""The supported pooling function names."""


def masked_pool(values: torch.Tensor, mask: Optional[torch.Tensor], pooling_func: str, dim: int) -> torch.Tensor:
    """Pools ``values`` over ``dim``, counting only the entries where ``mask`` is non-zero.

    Entries without any valid value pool to zero (for all three functions).

    Args:
        values: ``[..., N, ...]`` with the pooled dimension at ``dim``.
        mask: None, or a tensor that broadcasts against ``values`` (e.g. ``[..., N, 1]``).
        pooling_func: ``"mean"``, ``"sum"`` or ``"max"``.
        dim: The dimension to pool over.

    Returns:
        ``values`` without dimension ``dim``.
    """
    if mask is None:
        if pooling_func == "max":
            return values.amax(dim=dim)
        return values.mean(dim=dim) if pooling_func == "mean" else values.sum(dim=dim)
    valid = (mask != 0).expand_as(values)
    if pooling_func == "max":
        pooled = values.masked_fill(~valid, float("-inf")).amax(dim=dim)
        return pooled.masked_fill(~valid.any(dim=dim), 0.0)
    total = values.masked_fill(~valid, 0.0).sum(dim=dim)
    if pooling_func == "sum":
        return total
    return total / valid.sum(dim=dim).clamp(min=1).to(values.dtype)


def check_pooling_func(pooling_func: str, owner: str) -> str:
    """Returns ``pooling_func`` if it is supported.

    Raises:
        ConfigurationError: Naming the owner and the supported functions.
    """
    if pooling_func not in POOLING_FUNCTIONS:
        raise ConfigurationError(f"{owner}: pooling_func={pooling_func!r} is not one of {POOLING_FUNCTIONS}")
    return pooling_func


class MaskedGlobalPoolingBlock(PerceptionBlock):
    """Pools one dimension away (mean, sum or max), optionally masked.

    in_keys are ``[values]`` or ``[values, mask]``. With values of shape ``(N, F)`` and the
    default ``pooling_dim=-2`` the output is ``(F,)``; the mask has the values' shape up to
    and including the pooled dimension, e.g. ``(N,)``, with non-zero marking valid entries.

    Args:
        in_keys: The values key and, optionally, the mask key.
        out_keys: One output key.
        in_shapes: The values shape and, optionally, the mask shape (without batch dims).
        pooling_func: ``"mean"``, ``"sum"`` or ``"max"``.
        pooling_dim: The pooled dimension of the values shape (negative counts from the end).
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        pooling_func: str = "mean",
        pooling_dim: int = -2,
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.expect_key_counts(in_counts=(1, 2), out_counts=(1,))
        self.pooling_func = check_pooling_func(pooling_func, type(self).__name__)
        values_shape = self.in_shapes[0]
        self.pooling_dim = pooling_dim
        self._negative_dim = negative_dim(pooling_dim, len(values_shape), "pooling_dim", type(self).__name__)
        expected_mask = values_shape[: len(values_shape) + self._negative_dim + 1]
        if len(self.in_shapes) == 2 and self.in_shapes[1] != expected_mask:
            raise ConfigurationError(
                f"{type(self).__name__}: mask {self.in_keys[1]!r} has shape {self.in_shapes[1]} but values of shape "
                f"{values_shape} pooled over dim {pooling_dim} need a mask of shape {expected_mask}"
            )

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Pools ``[*leading, *values_shape]`` to ``[*leading, *values_shape without pooling_dim]``."""
        values = fetch_tensor(block_input, self.in_keys[0], type(self).__name__)
        mask = None
        if len(self.in_keys) == 2:
            mask = fetch_tensor(block_input, self.in_keys[1], type(self).__name__)
            mask = mask.reshape(*mask.shape, *([1] * (-self._negative_dim - 1)))
        return {self.out_keys[0]: masked_pool(values, mask, self.pooling_func, self._negative_dim)}

    def _repr_params(self) -> dict[str, Any]:
        return {"pooling_func": self.pooling_func, "pooling_dim": self.pooling_dim}
