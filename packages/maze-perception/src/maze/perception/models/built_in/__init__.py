"""Built-in networks for the CustomModelComposer."""

from maze.perception.models.built_in.flatten_concat import (
    FlattenConcatBaseNet,
    FlattenConcatPolicyNet,
    FlattenConcatStateActionValueNet,
    FlattenConcatStateValueNet,
)

__all__ = [
    "FlattenConcatBaseNet",
    "FlattenConcatPolicyNet",
    "FlattenConcatStateActionValueNet",
    "FlattenConcatStateValueNet",
]
