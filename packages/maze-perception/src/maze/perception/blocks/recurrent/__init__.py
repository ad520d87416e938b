"""Recurrent perception blocks."""

from maze.perception.blocks.recurrent.lstm import LSTMBlock

__all__ = ["LSTMBlock"]
