"""LSTM layers followed by a time-distributed dense layer."""

from __future__ import annotations

from typing import Any

import torch
from maze.perception.blocks.base import (
    KeysType,
    NonLinType,
    ShapesType,
    normalize_keys,
    normalize_shapes,
    resolve_non_lin,
)
from maze.perception.blocks.shape_normalization import ShapeNormalizationBlock
from torch import nn

__all__ = ["LSTMBlock"]


class LSTMBlock(ShapeNormalizationBlock):
    """LSTM layers over the time dimension, then a dense layer with activation at every step.

    The time axis is part of one observation (e.g. stacked by an observation stack wrapper):
    in_shapes ``(T, F)`` maps ``[B, T, F]`` to ``[B, T, hidden_size]``. An in_shape ``(F,)``
    is a sequence of length one: ``[B, F] -> [B, hidden_size]``. Each call starts from a
    zero hidden state.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: ``(T, F)`` or ``(F,)``.
        hidden_size: The LSTM hidden size and the size of the output features.
        num_layers: The number of stacked LSTM layers.
        bidirectional: Whether the LSTM also runs backwards in time.
        non_lin: The activation class (or its dotted path) after the dense layer.
    """

    def __init__(
        self,
        in_keys: KeysType,
        out_keys: KeysType,
        in_shapes: ShapesType,
        hidden_size: int,
        num_layers: int = 1,
        bidirectional: bool = False,
        non_lin: NonLinType = nn.ReLU,
    ):
        keys = normalize_keys(in_keys, f"{type(self).__name__} in_keys")
        has_time_dim = len(normalize_shapes(in_shapes, len(keys), type(self).__name__)[0]) >= 2
        num_dims = 3 if has_time_dim else 2
        super().__init__(
            in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes, in_num_dims=num_dims, out_num_dims=num_dims
        )
        self.expect_key_counts(in_counts=(1,), out_counts=(1,))
        self._has_time_dim = has_time_dim
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bidirectional = bidirectional
        self.non_lin = resolve_non_lin(non_lin)
        self.lstm = nn.LSTM(
            self.in_shapes[0][-1], hidden_size, num_layers=num_layers, batch_first=True, bidirectional=bidirectional
        )
        self.dense = nn.Sequential(nn.Linear(hidden_size * (2 if bidirectional else 1), hidden_size), self.non_lin())

    def normalized_forward(self, block_input: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """``[B, T, F] -> [B, T, hidden_size]`` (or ``[B, F] -> [B, hidden_size]``)."""
        sequence = block_input[self.in_keys[0]]
        if not self._has_time_dim:
            sequence = sequence.unsqueeze(1)
        output = self.dense(self.lstm(sequence)[0])
        return {self.out_keys[0]: output if self._has_time_dim else output.squeeze(1)}

    def _repr_params(self) -> dict[str, Any]:
        return {
            "hidden_size": self.hidden_size,
            "num_layers": self.num_layers,
            "bidirectional": self.bidirectional,
            "non_lin": self.non_lin,
        }
