"""The base of joint blocks: a fixed chain of single-input, single-output blocks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from maze.perception.blocks.base import PerceptionBlock, ShapeType, fetch_tensor
from torch import nn

__all__ = ["ChainedBlock", "StageBuilder"]

StageBuilder = Callable[..., PerceptionBlock]
"""Builds one stage when called with ``in_keys``, ``out_keys`` and ``in_shapes`` keyword arguments."""


class ChainedBlock(PerceptionBlock):
    """A block made of stages that run one after the other, each feeding the next.

    Subclasses call :meth:`build_stages` in their constructor. Intermediate tensors are named
    ``<out_key>_<stage name>`` and stay inside the block; leading batch/time dims are handled
    by the stages themselves.
    """

    def build_stages(self, stages: Sequence[tuple[str, StageBuilder]]) -> None:
        """Builds the stages in order, wiring each one's output to the next one's input.

        Args:
            stages: ``(name, builder)`` pairs; the last stage writes the block's output key.
        """
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        in_key, in_shape = self.in_keys[0], self.in_shapes[0]
        built: list[PerceptionBlock] = []
        for index, (name, builder) in enumerate(stages):
            out_key = self.out_keys[0] if index == len(stages) - 1 else f"{self.out_keys[0]}_{name}"
            stage = builder(in_keys=in_key, out_keys=out_key, in_shapes=in_shape)
            built.append(stage)
            in_key, in_shape = out_key, stage.out_shapes()[0]
        self.stages = nn.ModuleList(built)

    def forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Runs the stages: ``[*leading, *in_shape] -> [*leading, *out_shape]``."""
        tensor = fetch_tensor(block_input, self.in_keys[0], type(self).__name__)
        for stage in self.stages:
            tensor = stage({stage.in_keys[0]: tensor})[stage.out_keys[0]]
        return {self.out_keys[0]: tensor}

    def out_shapes(self) -> list[ShapeType]:
        """The output shape of the last stage (known from construction, no forward pass)."""
        return self.stages[-1].out_shapes()

    def _repr_params(self) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for stage in self.stages:
            params.update(stage._repr_params())
        return params
