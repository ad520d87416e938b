"""An LSTM block whose output is reduced to the last time step."""

from __future__ import annotations

from functools import partial

from maze.perception.blocks.base import KeysType, NonLinType, ShapesType
from maze.perception.blocks.general.slice import SliceBlock
from maze.perception.blocks.joint_blocks.chain import ChainedBlock, StageBuilder
from maze.perception.blocks.recurrent.lstm import LSTMBlock
from torch import nn

__all__ = ["LSTMLastStepBlock"]


class LSTMLastStepBlock(ChainedBlock):
    """An :class:`LSTMBlock` followed by selecting the last time step.

    Maps ``(T, F)`` to ``(hidden_size,)``; an in_shape ``(F,)`` is a sequence of length one
    (see :class:`LSTMBlock`) and also maps to ``(hidden_size,)``.

    Args:
        in_keys: One input key.
        out_keys: One output key.
        in_shapes: ``(T, F)`` or ``(F,)``.
        hidden_size: The LSTM hidden size and the output size.
        num_layers: The number of stacked LSTM layers.
        bidirectional: Whether the LSTM also runs backwards in time.
        non_lin: The activation class (or its dotted path).
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
        super().__init__(in_keys=in_keys, out_keys=out_keys, in_shapes=in_shapes)
        lstm = partial(
            LSTMBlock, hidden_size=hidden_size, num_layers=num_layers, bidirectional=bidirectional, non_lin=non_lin
        )
        stages: list[tuple[str, StageBuilder]] = [("lstm", lstm)]
        if len(self.in_shapes[0]) >= 2:
            stages.append(("last_step", partial(SliceBlock, slice_dim=-2, slice_idx=-1)))
        self.build_stages(stages)
