"""Output blocks (action logits, values)."""

from maze.perception.blocks.output.linear import LinearOutputBlock

__all__ = ["LinearOutputBlock"]
