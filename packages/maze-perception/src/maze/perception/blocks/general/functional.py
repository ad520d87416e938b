"""A block that applies a user-supplied callable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

import torch
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor

__all__ = ["FunctionalBlock"]

TensorFunction = Callable[..., Union[torch.Tensor, tuple[torch.Tensor, ...]]]
"""Called with the input tensors in ``in_keys`` order; returns one tensor per output key."""


class FunctionalBlock(PerceptionBlock):
    """Applies ``func`` to the input tensors (positionally, in ``in_keys`` order).

    ``func`` returns one tensor, or a tuple with one tensor per output key. It must handle
    any leading batch/time dimensions itself (e.g. ``torch.sigmoid`` or
    ``lambda x: x.sum(dim=-1, keepdim=True)``).

    Args:
        in_keys: The input keys.
        out_keys: The output keys.
        in_shapes: One shape per input (without batch dims).
        func: The callable.
    """

    def __init__(self, in_keys: KeysType, out_keys: KeysType, in_shapes: ShapesType, func: TensorFunction):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.func = func

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Calls ``func`` and names its results by ``out_keys``."""
        result = self.func(*(fetch_tensor(block_input, key, type(self).__name__) for key in self.in_keys))
        results = (result,) if isinstance(result, torch.Tensor) else tuple(result)
        if len(results) != len(self.out_keys):
            raise ValueError(
                f"{type(self).__name__}: func returned {len(results)} tensors for the {len(self.out_keys)} out_keys "
                f"{self.out_keys}"
            )
        return dict(zip(self.out_keys, results, strict=True))

    def _repr_params(self) -> dict[str, Any]:
        return {"func": getattr(self.func, "__name__", type(self.func).__name__)}
