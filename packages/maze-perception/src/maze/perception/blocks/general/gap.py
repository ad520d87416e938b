"""Global pooling over all spatial dimensions of a feature map."""

from __future__ import annotations

from typing import Any

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor
from maze.perception.blocks.general.masked_global_pooling import check_pooling_func, masked_pool

__all__ = ["GlobalAveragePoolingBlock"]


class GlobalAveragePoolingBlock(PerceptionBlock):
    """Pools a channel-first feature map over its spatial dimensions.

    Maps ``(C, *spatial)`` (e.g. ``(C, H, W)``) to ``(C,)``.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: ``(C, *spatial)`` with at least one spatial dimension.
        pooling_func: ``"mean"`` (default), ``"sum"`` or ``"max"``.
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType, pooling_func: str = "mean"):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        self.pooling_func = check_pooling_func(pooling_func, type(self).__name__)
        if len(self.in_shapes[0]) < 2:
            raise ConfigurationError(
                f"{type(self).__name__}: in_shapes {self.in_shapes[0]} needs a channel and at least one spatial dim"
            )

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Pools ``[*leading, C, *spatial]`` to ``[*leading, C]``."""
        values = fetch_tensor(block_input, self.in_keys[0], type(self).__name__)
        num_spatial = len(self.in_shapes[0]) - 1
        flat = values.flatten(start_dim=-num_spatial)
        return {self.out_keys[0]: masked_pool(flat, None, self.pooling_func, dim=-1)}

    def _repr_params(self) -> dict[str, Any]:
        return {"pooling_func": self.pooling_func}
