"""Built-in networks: flatten every observation, concatenate, dense layers, then output heads."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import torch
from maze.perception.blocks.base import NonLinType, PerceptionBlock
from maze.perception.blocks.feed_forward.dense import DenseBlock
from maze.perception.blocks.general.concat import ConcatenationBlock
from maze.perception.blocks.general.flatten import FlattenBlock
from maze.perception.blocks.inference import InferenceBlock
from maze.perception.blocks.output.linear import LinearOutputBlock
from maze.perception.weight_init import make_module_init_normc
from torch import nn

__all__ = [
    "FlattenConcatBaseNet",
    "FlattenConcatPolicyNet",
    "FlattenConcatStateActionValueNet",
    "FlattenConcatStateValueNet",
]


class FlattenConcatBaseNet(nn.Module):
    """Flattens each input to a vector, concatenates them and applies a DenseBlock (tensor ``latent``).

    Subclasses add output heads with :meth:`_finish`.

    Args:
        obs_shapes: Input key -> shape (without batch dims).
        hidden_units: Units of the dense layers.
        non_lin: Activation class or dotted path.
    """

    def __init__(self, obs_shapes: Mapping[str, Sequence[int]], hidden_units: Sequence[int], non_lin: NonLinType):
        super().__init__()
        self.obs_shapes = {key: tuple(shape) for key, shape in obs_shapes.items()}
        self.perception_dict: dict[str, PerceptionBlock] = {}
        flat_keys = []
        for key, shape in self.obs_shapes.items():
            name = f"{key}_flat"
            self.perception_dict[name] = FlattenBlock(
                in_keys=key, out_keys=name, in_shapes=shape, num_flatten_dims=len(shape)
            )
            flat_keys.append(name)
        self.perception_dict["hidden_out"] = ConcatenationBlock(
            in_keys=flat_keys,
            out_keys="hidden_out",
            in_shapes=[self.perception_dict[key].out_shapes()[0] for key in flat_keys],
        )
        self.perception_dict["latent"] = DenseBlock(
            in_keys="hidden_out",
            out_keys="latent",
            in_shapes=self.perception_dict["hidden_out"].out_shapes(),
            hidden_units=list(hidden_units),
            non_lin=non_lin,
        )

    def _finish(self, output_shapes: Mapping[str, Sequence[int]], head_std: float) -> None:
        """Adds one linear head per output, builds the inference graph and initialises the weights."""
        for key, shape in output_shapes.items():
            self.perception_dict[key] = LinearOutputBlock(
                in_keys="latent",
                out_keys=key,
                in_shapes=self.perception_dict["latent"].out_shapes(),
                output_units=math.prod(shape),
            )
        in_keys = list(self.obs_shapes)
        self.perception_net = InferenceBlock(
            in_keys=in_keys,
            out_keys=list(output_shapes),
            in_shapes=[self.obs_shapes[key] for key in in_keys],
            perception_blocks=self.perception_dict,
        )
        self.perception_net.apply(make_module_init_normc(1.0))
        for key in output_shapes:
            self.perception_dict[key].apply(make_module_init_normc(head_std))

    def forward(self, in_tensor_dict: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """Tensor dict ``[*batch, *shape]`` -> outputs ``[*batch, units]``."""
        return self.perception_net(in_tensor_dict)


class FlattenConcatPolicyNet(FlattenConcatBaseNet):
    """Flatten-concat policy: logits per action head.

    Args:
        obs_shapes: Observation key -> shape.
        action_logits_shapes: Action head -> logits shape.
        hidden_units: Units of the dense layers.
        non_lin: Activation class or dotted path.
    """

    def __init__(
        self,
        obs_shapes: Mapping[str, Sequence[int]],
        action_logits_shapes: Mapping[str, Sequence[int]],
        hidden_units: Sequence[int],
        non_lin: NonLinType,
    ):
        super().__init__(obs_shapes, hidden_units, non_lin)
        self._finish(action_logits_shapes, head_std=0.01)


class FlattenConcatStateValueNet(FlattenConcatBaseNet):
    """Flatten-concat state critic: ``value`` ``[*batch, 1]``.

    Args:
        obs_shapes: Observation key -> shape.
        hidden_units: Units of the dense layers.
        non_lin: Activation class or dotted path.
    """

    def __init__(self, obs_shapes: Mapping[str, Sequence[int]], hidden_units: Sequence[int], non_lin: NonLinType):
        super().__init__(obs_shapes, hidden_units, non_lin)
        self._finish({"value": (1,)}, head_std=1.0)


class FlattenConcatStateActionValueNet(FlattenConcatBaseNet):
    """Flatten-concat Q network: one head per entry of ``output_shapes``.

    Args:
        obs_shapes: Observation key (and non-discrete action head) -> shape.
        output_shapes: ``<head>_q_values`` / ``q_value`` -> shape.
        hidden_units: Units of the dense layers.
        non_lin: Activation class or dotted path.
    """

    def __init__(
        self,
        obs_shapes: Mapping[str, Sequence[int]],
        output_shapes: Mapping[str, Sequence[int]],
        hidden_units: Sequence[int],
        non_lin: NonLinType,
    ):
        super().__init__(obs_shapes, hidden_units, non_lin)
        self._finish(output_shapes, head_std=1.0)
