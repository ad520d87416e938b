"""MazeRLModule: a Maze policy and critic (built by maze-perception's model composers) as an RLlib TorchRLModule."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Optional

import torch
from maze.env.core.actor import ActorID, StepKeyType
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.rllib.distribution import MazeActionDistribution, MazeActionHeads
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import TargetNetworkAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.apis.target_network_api import TARGET_NETWORK_ACTION_DIST_INPUTS
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

__all__ = ["MAZE_MODEL_KEY", "SPACES_KEY", "STEP_KEY", "MazeRLModule", "maze_module_config"]

MAZE_MODEL_KEY = "maze_model"
"""``model_config`` key of the Maze model config (the ``model`` group with its ``critic``)."""

SPACES_KEY = "maze_spaces"
"""``model_config`` key of the env's :class:`SpacesConfig`."""

STEP_KEY = "maze_step_key"
"""``model_config`` key of the sub-step whose policy (and critic) the module holds."""


def maze_module_config(model_config: Mapping[str, Any], spaces: SpacesConfig, step_key: StepKeyType) -> dict[str, Any]:
    """The ``model_config`` of an :class:`RLModuleSpec` building a :class:`MazeRLModule`.

    Args:
        model_config: The Maze model config (``_target_`` of a model composer, with ``critic``).
        spaces: The env's spaces (as written to ``spaces_config.yaml``).
        step_key: The sub-step the module acts for.
    """
    return {MAZE_MODEL_KEY: dict(model_config), SPACES_KEY: spaces, STEP_KEY: step_key}


class MazeRLModule(TorchRLModule, ValueFunctionAPI, TargetNetworkAPI):
    """The policy and critic networks of a Maze model composer, acting for one sub-step.

    RLlib builds it (on the learner and on every env runner) from ``model_config`` (see
    :func:`maze_module_config`). Observations are the sub-step's dict observations
    (key -> ``[B, *shape]``); ``Columns.ACTION_DIST_INPUTS`` holds the policy's logits of all
    action heads as one tensor ``[B, n]``, read by :class:`MazeActionDistribution`; actions
    are dicts of head -> ``[B, *action_shape]``. The module's parameters are the networks of
    :attr:`maze_model`, a :class:`TorchActorCritic` whose ``state_dict()`` is Maze's checkpoint format.

    Algorithms with a target policy (APPO) get a copy of the policy networks (:meth:`make_target_networks`).
    """

    def setup(self) -> None:
        """Builds the Maze model from ``model_config``."""
        spaces: SpacesConfig = self.model_config[SPACES_KEY]
        self.step_key = self.model_config[STEP_KEY]
        composer = build_model_composer(self.model_config[MAZE_MODEL_KEY], spaces)
        self.maze_model: TorchActorCritic = composer.torch_actor_critic()
        self.networks = nn.ModuleDict(self.maze_model.named_networks())
        self.actor_id = ActorID(self.step_key, 0)
        critics = self.maze_model.critic.networks
        self.critic_id = None if len(critics) == 1 else self.actor_id
        mapper = composer.distribution_mapper
        mapper = mapper[self.step_key] if isinstance(mapper, Mapping) else mapper
        self.heads = MazeActionHeads.from_mapper(mapper, spaces.action_spaces_dict[self.step_key])
        self.action_dist_cls = MazeActionDistribution.for_heads(self.heads)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The flat action logits ``[B, n]`` of the observations ``batch[Columns.OBS]``."""
        return {Columns.ACTION_DIST_INPUTS: self._flat_logits(self.maze_model.policy, batch)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The flat action logits and the policy's shared embeddings (key -> ``[B, ...]``, for the critic)."""
        logits, embeddings = self._policy_output(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: embeddings}

    def compute_values(
        self, batch: dict[str, Any], embeddings: Optional[dict[str, torch.Tensor]] = None
    ) -> torch.Tensor:
        """The critic's state values ``[B]`` of ``batch[Columns.OBS]`` (with the policy's shared embeddings).

        Args:
            batch: RLlib's batch; its observations are key -> ``[B, *shape]``.
            embeddings: The shared embeddings of :meth:`_forward_train` (None: computed here).
        """
        if embeddings is None:
            embeddings = self._policy_output(batch)[1]
        return self.maze_model.critic.predict_value({**batch[Columns.OBS], **embeddings}, self.critic_id)

    def make_target_networks(self) -> None:
        """Builds the target policy: a copy of the Maze policy whose networks RLlib's learner keeps in sync."""
        self.target_policy = copy.deepcopy(self.maze_model.policy)
        self.target_networks = nn.ModuleDict(self.target_policy.named_networks()).requires_grad_(False)

    def get_target_network_pairs(self) -> list[tuple[nn.Module, nn.Module]]:
        """(policy network, its target) pairs."""
        main = self.maze_model.policy.named_networks()
        return [(main[name], target) for name, target in self.target_networks.items()]

    def forward_target(self, batch: dict[str, Any]) -> dict[str, Any]:
        """The target policy's flat action logits ``[B, n]``."""
        return {TARGET_NETWORK_ACTION_DIST_INPUTS: self._flat_logits(self.target_policy, batch)}

    def _flat_logits(self, policy: Any, batch: dict[str, Any]) -> torch.Tensor:
        """The flat action logits ``[B, n]`` of ``policy`` (the Maze policy or its target copy) for the batch."""
        return self.heads.flatten(policy.compute_logits_dict(batch[Columns.OBS], self.actor_id))

    def _policy_output(self, batch: dict[str, Any]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Flat action logits ``[B, n]`` and shared embeddings of the batch's observations."""
        output = self.maze_model.policy.compute_substep_policy_output(batch[Columns.OBS], self.actor_id)
        return self.heads.flatten(output.action_logits), output.embedding_logits
