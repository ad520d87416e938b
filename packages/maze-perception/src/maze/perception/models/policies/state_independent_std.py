"""State-independent standard deviations for the Gaussian action heads of a policy network.

A Gaussian head's logits are its mean and its log-std, stacked along the last axis (see
:func:`maze.distributions.utils.split_two_parameter_logits`). When the network computes both,
every sample pulls on the log-std, and on-policy trainers without an entropy bonus can shrink
it to near zero within a few updates: exploration stops before the policy is good. With
:class:`StateIndependentStd` the network computes only the mean; the log-std is one learned
parameter per action dimension, starting at 0 (std 1), which narrows only as fast as the
policy gradient as a whole asks for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from torch import nn

__all__ = ["StateIndependentStd", "log_std_heads"]


def log_std_heads(distribution_classes: Mapping[str, type]) -> list[str]:
    """The heads whose distributions read a log-std from their logits (Gaussian and squashed Gaussian).

    A distribution class marks that by its ``log_std_bounds`` (the clamp of the log-std half of its logits).

    Args:
        distribution_classes: Action head -> its distribution class.
    """
    return [head for head, distribution in distribution_classes.items() if hasattr(distribution, "log_std_bounds")]


class StateIndependentStd(nn.Module):
    """Wraps a policy network: the log-std half of the logits of ``heads`` becomes a learned parameter.

    Args:
        network: The policy network (tensor dict in, logits per head out).
        logits_shapes: Action head -> logits shape for the wrapped heads (last axis: mean, then log-std).

    Attributes:
        log_std: Head -> ``[*logits_shape[:-1], logits_shape[-1] // 2]`` log-std parameters (initially 0).
    """

    def __init__(self, network: nn.Module, logits_shapes: Mapping[str, Sequence[int]]) -> None:
        super().__init__()
        self.network = network
        self.log_std = nn.ParameterDict(
            {head: nn.Parameter(torch.zeros(*shape[:-1], shape[-1] // 2)) for head, shape in logits_shapes.items()}
        )

    def forward(self, tensor_dict: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """The network's outputs, with each wrapped head's logits ``[*batch, *shape]`` = (its mean, the parameter)."""
        outputs = dict(self.network(tensor_dict))
        for head, log_std in self.log_std.items():
            mean = outputs[head].chunk(2, dim=-1)[0]
            outputs[head] = torch.cat([mean, log_std.expand_as(mean)], dim=-1)
        return outputs
