"""The ONNX and numpy peers of the deployment benchmark: the same CartPole ``vector_obs`` policy three ways.

* ``OnnxPolicy``: the TorchPolicy exported with ``maze.perception.export`` and run with onnxruntime.
* The numpy floor: the same weights as three numpy matrix products (dense 128 tanh -> dense 128
  tanh -> logits) and an argmax; no framework at all, the least a deterministic act can cost.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from maze.deploy import OnnxPolicy
from maze.env import ActorID, Policy
from maze.env.utils.spaces_config import SpacesConfig
from maze.perception.export import export_policy

__all__ = ["NumpyFloorPolicy", "onnx_policy"]

_EXPORTS = Path(tempfile.mkdtemp(prefix="maze-deploy-bench-"))


def onnx_policy(torch_policy: Any, env: Any) -> OnnxPolicy:
    """``torch_policy`` exported for ``env``'s spaces and loaded as an OnnxPolicy (one onnxruntime thread)."""
    directory = export_policy(torch_policy, SpacesConfig.from_env(env), _EXPORTS / f"export-{id(torch_policy)}")
    return OnnxPolicy(directory)


class NumpyFloorPolicy(Policy):
    """The ``vector_obs`` policy network of a TorchPolicy as plain numpy (deterministic argmax only).

    Args:
        torch_policy: A CartPole ``vector_obs`` TorchPolicy (its three linear layers, in order).
    """

    def __init__(self, torch_policy: Any) -> None:
        layers = [module for module in torch_policy.networks[0].modules() if isinstance(module, torch.nn.Linear)]
        if len(layers) != 3:
            raise ValueError(f"expected the 3 linear layers of vector_obs, got {len(layers)}")
        self.layers = [(layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy()) for layer in layers]

    def compute_action(self, observation, maze_state=None, env=None, actor_id=None, deterministic=False):  # noqa: ANN001, ANN201
        """``argmax(W3 tanh(W2 tanh(W1 x + b1) + b2) + b3)`` for one observation ``[4]``."""
        (w1, b1), (w2, b2), (w3, b3) = self.layers
        hidden = np.tanh(np.tanh(observation["observation"] @ w1 + b1) @ w2 + b2)
        return {"action": np.int64(np.argmax(hidden @ w3 + b3))}


def check_same_decisions(policies: list[Policy], observations: list[Any]) -> None:
    """Raises unless every policy takes the first one's deterministic action on every observation."""
    actor = ActorID(0, 0)
    for observation in observations:
        actions = {
            int(policy.compute_action(observation, actor_id=actor, deterministic=True)["action"]) for policy in policies
        }
        if len(actions) != 1:
            raise AssertionError(f"the peers disagree on {observation}: {actions}")
