"""Blocks that see a fixed tensor rank whatever leading batch/time dimensions the input has."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Union

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import KeysType, PerceptionBlock, ShapesType, fetch_tensor

__all__ = ["NumDimsType", "ShapeNormalizationBlock"]

NumDimsType = Union[int, Sequence[int]]
"""One rank for all tensors or one rank per tensor."""


class ShapeNormalizationBlock(PerceptionBlock):
    """A perception block whose :meth:`normalized_forward` always sees tensors of a fixed rank.

    Each input tensor is brought to ``in_num_dims`` dimensions (batch dimension included):
    a tensor without batch dimension (rank ``in_num_dims - 1``) gets a batch dimension of
    size one; a tensor with more dimensions has its extra leading dimensions flattened into
    the batch dimension, e.g. ``[T, B, F] -> [T*B, F]`` for ``in_num_dims=2``. The outputs of
    :meth:`normalized_forward` (rank ``out_num_dims``) get the original leading dimensions
    back, so one block handles a single observation, a batch ``[B, ...]`` and a sequence of
    batches ``[T, B, ...]`` alike. All inputs of one call must share the flattened leading
    dimensions.

    Args:
        in_keys: Name(s) of the input tensors.
        out_keys: Name(s) of the output tensors.
        in_shapes: The input shape(s) without batch dimensions.
        in_num_dims: The rank (including the batch dimension) :meth:`normalized_forward`
            expects, for all inputs or one per input.
        out_num_dims: The rank (including the batch dimension) :meth:`normalized_forward`
            returns, for all outputs or one per output.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        in_num_dims: NumDimsType,
        out_num_dims: NumDimsType,
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        self.in_num_dims = self._per_key(in_num_dims, self.in_keys, "in_num_dims")
        self.out_num_dims = self._per_key(out_num_dims, self.out_keys, "out_num_dims")
        for key, shape, num_dims in zip(self.in_keys, self.in_shapes, self.in_num_dims, strict=True):
            if len(shape) < num_dims - 1:
                raise ConfigurationError(
                    f"{type(self).__name__}: input {key!r} has shape {shape} (rank {len(shape)}) but the block needs "
                    f"rank {num_dims - 1} without the batch dimension; check in_shapes or in_num_dims"
                )
        # (key, rank) pairs precomputed for forward, which runs on every policy step
        self._in_specs = tuple(zip(self.in_keys, self.in_num_dims, strict=True))
        self._out_specs = tuple(zip(self.out_keys, self.out_num_dims, strict=True))

    def _per_key(self, num_dims: NumDimsType, keys: list[str], what: str) -> list[int]:
        """Expands one rank to all keys, or checks that there is one rank per key."""
        dims = [num_dims] * len(keys) if isinstance(num_dims, int) else list(num_dims)
        if len(dims) != len(keys) or not all(isinstance(dim, int) and dim >= 1 for dim in dims):
            raise ConfigurationError(
                f"{type(self).__name__}: {what}={num_dims!r} must be one positive int or one per key of {keys}"
            )
        return dims

    def forward(self, block_input: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Normalizes the input ranks, runs :meth:`normalized_forward` and restores the leading dims.

        Args:
            block_input: Tensors of shape ``[*leading, *in_shape]`` (``leading`` may be empty).

        Returns:
            Tensors of shape ``[*leading, *out_shape]``.
        """
        leading: tuple[int, ...] | None = None
        exact_rank = True  # inputs of exactly the declared rank need no reshaping (the common batch case)
        normalized: dict[str, torch.Tensor] = {}
        for key, num_dims in self._in_specs:
            tensor = block_input[key] if key in block_input else fetch_tensor(block_input, key, type(self).__name__)
            num_leading = tensor.dim() - num_dims + 1
            if num_leading < 0:
                raise ValueError(
                    f"{type(self).__name__}: input {key!r} has shape {tuple(tensor.shape)} but needs at least "
                    f"{num_dims - 1} dimensions (declared in_shapes {self.in_shapes})"
                )
            prefix = tuple(tensor.shape[:num_leading])
            if leading is None:
                leading = prefix
            elif prefix != leading:
                raise ValueError(
                    f"{type(self).__name__}: input {key!r} has leading dims {prefix} but {self.in_keys[0]!r} has "
                    f"{leading}; all inputs of one call need the same batch/time dimensions"
                )
            if num_leading == 1:
                normalized[key] = tensor
            else:
                exact_rank = False
                normalized[key] = tensor.reshape(math.prod(prefix), *tensor.shape[num_leading:])
        output = self.normalized_forward(normalized)
        restored: dict[str, torch.Tensor] = {}
        for key, num_dims in self._out_specs:
            tensor = output[key] if key in output else fetch_tensor(output, key, type(self).__name__)
            if tensor.dim() != num_dims:
                raise ValueError(
                    f"{type(self).__name__}: normalized_forward returned {key!r} with rank {tensor.dim()} "
                    f"(shape {tuple(tensor.shape)}), but out_num_dims says {num_dims}"
                )
            restored[key] = tensor if exact_rank else tensor.reshape(*leading, *tensor.shape[1:])
        return restored

    @abstractmethod
    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Computes the outputs from inputs of exactly the declared ranks.

        Args:
            block_input: The inputs named by ``in_keys``, each of rank ``in_num_dims`` with
                the batch dimension first.

        Returns:
            The outputs named by ``out_keys``, each of rank ``out_num_dims`` with the batch
            dimension first.
        """
