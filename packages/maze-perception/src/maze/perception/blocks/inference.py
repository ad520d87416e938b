"""A perception block that runs other blocks as a graph keyed by tensor names."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import torch
from maze.env.errors import ConfigurationError
from maze.perception.blocks.base import (
    KeysType,
    PerceptionBlock,
    ShapesType,
    ShapeType,
    call_module,
    fetch_tensor,
    has_no_own_dispatch,
    no_global_dispatch,
)
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["InferenceBlock"]


class InferenceBlock(PerceptionBlock):
    """Combines perception blocks into one prediction module.

    Blocks are linked through tensor names: a block runs once all tensors named by its
    ``in_keys`` exist, either as inputs of the inference block or as outputs of other
    blocks. The execution order is derived (and the declared shapes checked) at
    construction. ``out_keys`` may name any tensor of the graph, so intermediate tensors
    (e.g. a ``latent`` embedding shared with a critic) can be exposed next to the heads.

    Args:
        in_keys: The names of the input tensors.
        out_keys: The names of the tensors to return.
        in_shapes: One shape per input (without batch dims).
        perception_blocks: The blocks by name (names must not contain ``"."``).

    Raises:
        ConfigurationError: If a block needs a tensor nothing provides, two blocks write the
            same tensor, the blocks form a cycle, a declared input shape differs from the
            shape of the tensor it receives, or an out_key names no tensor.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        perception_blocks: Mapping[str, PerceptionBlock],
    ):
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        if not perception_blocks:
            raise ConfigurationError("InferenceBlock: perception_blocks is empty; add at least one block")
        bad = [name for name in perception_blocks if not isinstance(name, str) or not name or "." in name]
        if bad:
            raise ConfigurationError(f"InferenceBlock: block names {bad!r} must be non-empty strings without '.'")
        self.perception_blocks = nn.ModuleDict(perception_blocks)
        self._producers = self._find_producers()
        self.execution_order: list[str] = self._sort_blocks()
        self._tensor_shapes = self._check_shapes()
        missing = [key for key in self.out_keys if key not in self._tensor_shapes]
        if missing:
            raise ConfigurationError(
                f"InferenceBlock: out_keys {missing} name no tensor of the graph; known tensors: "
                f"{sorted(self._tensor_shapes)}"
            )
        # Fast path (see forward): the blocks whose normalized_forward may be called directly on
        # inputs with one batch dim (plain ShapeNormalizationBlocks).
        self._plain_blocks = {
            name
            for name, block in self.perception_blocks.items()
            if isinstance(block, ShapeNormalizationBlock) and type(block).forward is ShapeNormalizationBlock.forward
        }
        self._fast_path_ready = False

    def _find_producers(self) -> dict[str, str]:
        """Maps every block output tensor to the block that writes it."""
        producers: dict[str, str] = {}
        for name, block in self.perception_blocks.items():
            for key in block.out_keys:
                if key in self.in_keys:
                    raise ConfigurationError(f"InferenceBlock: block {name!r} writes {key!r}, which is an input")
                if key in producers:
                    raise ConfigurationError(
                        f"InferenceBlock: tensor {key!r} is written by both {producers[key]!r} and {name!r}"
                    )
                producers[key] = name
        return producers

    def _sort_blocks(self) -> list[str]:
        """Returns the block names in an order where every block runs after its inputs exist."""
        for name, block in self.perception_blocks.items():
            for key in block.in_keys:
                if key not in self.in_keys and key not in self._producers:
                    raise ConfigurationError(
                        f"InferenceBlock: block {name!r} needs tensor {key!r}, which is neither an input "
                        f"({self.in_keys}) nor written by any block; add it to in_keys or add a block that writes it"
                    )
        available = set(self.in_keys)
        pending = list(self.perception_blocks)
        order: list[str] = []
        while pending:
            ready = [name for name in pending if set(self.perception_blocks[name].in_keys) <= available]
            if not ready:
                waiting = {name: sorted(set(self.perception_blocks[name].in_keys) - available) for name in pending}
                raise ConfigurationError(
                    f"InferenceBlock: the blocks form a cycle; blocks waiting for tensors: {waiting}"
                )
            for name in ready:
                order.append(name)
                available.update(self.perception_blocks[name].out_keys)
                pending.remove(name)
        return order

    def _check_shapes(self) -> dict[str, ShapeType]:
        """Checks every block's declared input shapes and returns the shape of every tensor."""
        shapes: dict[str, ShapeType] = dict(zip(self.in_keys, self.in_shapes, strict=True))
        for name in self.execution_order:
            block = self.perception_blocks[name]
            for key, declared in zip(block.in_keys, block.in_shapes, strict=True):
                if shapes[key] != declared:
                    source = f"written by {self._producers[key]!r}" if key in self._producers else "an input"
                    raise ConfigurationError(
                        f"InferenceBlock: block {name!r} declares input {key!r} with shape {declared}, but {key!r} "
                        f"({source}) has shape {shapes[key]}"
                    )
            shapes.update(zip(block.out_keys, block.out_shapes(), strict=True))
        return shapes

    def tensor_shapes(self) -> dict[str, ShapeType]:
        """Returns the shape (without batch dims) of every tensor of the graph, inputs included."""
        return dict(self._tensor_shapes)

    def producer_of(self, key: str) -> str | None:
        """Returns the name of the block that writes tensor ``key`` (None for inputs)."""
        return self._producers.get(key)

    def forward(self, block_input: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Runs all blocks in execution order.

        Args:
            block_input: The tensors named by ``in_keys`` with any common leading dims.

        Returns:
            The tensors named by ``out_keys``, with the same leading dims.
        """
        tensors = {key: fetch_tensor(block_input, key, "InferenceBlock") for key in self.in_keys}
        blocks = self.perception_blocks._modules  # skips nn.Module.__getattr__/ModuleDict lookups per block
        leading = self._common_leading_dims(tensors) if self._fast_path_ready else None
        if leading is None:
            for name in self.execution_order:
                tensors.update(call_module(blocks[name], tensors))
            self._fast_path_ready = True  # the blocks' output ranks were checked once
            return {key: tensors[key] for key in self.out_keys}
        # Fast path: the common leading dims are flattened to one batch dim [N, *shape] once, so
        # plain ShapeNormalizationBlocks need no reshaping and their normalized_forward runs directly.
        if len(leading) != 1:
            rows = math.prod(leading)
            tensors = {
                key: tensor.reshape(rows, *shape)
                for (key, tensor), shape in zip(tensors.items(), self.in_shapes, strict=True)
            }
        direct = no_global_dispatch()  # checked once per call; each block's own hooks below
        for name in self.execution_order:
            block = blocks[name]
            if direct and name in self._plain_blocks and has_no_own_dispatch(block):
                tensors.update(block.normalized_forward({key: tensors[key] for key in block.in_keys}))
            else:
                tensors.update(call_module(block, tensors))
        if len(leading) == 1:
            return {key: tensors[key] for key in self.out_keys}
        return {key: tensors[key].reshape(*leading, *tensors[key].shape[1:]) for key in self.out_keys}

    def _common_leading_dims(self, tensors: Mapping[str, torch.Tensor]) -> tuple[int, ...] | None:
        """The leading dims all inputs share in front of their declared shapes (None if they differ)."""
        leading: tuple[int, ...] | None = None
        for tensor, shape in zip(tensors.values(), self.in_shapes, strict=True):
            rank = tensor.dim() - len(shape)
            prefix = tuple(tensor.shape[:rank]) if rank >= 0 else None
            if prefix is None or (leading is not None and prefix != leading):
                return None
            leading = prefix
        return leading

    def out_shapes(self) -> list[ShapeType]:
        """The shapes of the ``out_keys`` tensors (from the blocks' shapes, no forward pass)."""
        return [self._tensor_shapes[key] for key in self.out_keys]

    def _repr_params(self) -> dict[str, Any]:
        return {"blocks": len(self.perception_blocks)}
