"""The model composer interface: spaces, distribution mapper, policy and critic networks."""

from __future__ import annotations

from abc import ABC
from collections.abc import Mapping
from typing import Any, Optional, Union

import numpy as np
import torch
from gymnasium import spaces
from maze.distributions import DistributionMapper, DistributionMapperConfig
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import ConfigType, Factory, resolve_target, to_plain_config
from maze.env.utils.spaces import ordered_dict_space
from maze.perception.agent.torch_actor_critic import TorchActorCritic
from maze.perception.agent.torch_model import network_name
from maze.perception.agent.torch_policy import TorchPolicy
from maze.perception.blocks.inference import InferenceBlock
from maze.perception.blocks.inference_graph import InferenceGraphStructure, inference_graph_structure
from maze.perception.models.critics import BaseStateActionCriticComposer, CriticComposerInterface
from maze.perception.models.policies import BasePolicyComposer
from maze.perception.models.spaces_config import SpacesConfig
from maze.perception.perception_utils import flatten_spaces
from torch import nn

__all__ = ["BaseModelComposer", "build_distribution_mapper", "build_model_composer", "find_inference_block"]


def build_distribution_mapper(
    action_spaces_dict: Mapping[StepKeyType, spaces.Dict], config: DistributionMapperConfig
) -> Union[DistributionMapper, dict[StepKeyType, DistributionMapper]]:
    """One mapper over the heads of all sub-steps (one per sub-step if they reuse a head name with other spaces)."""
    try:
        union = flatten_spaces(action_spaces_dict.values())
    except ConfigurationError:
        return DistributionMapper.for_sub_steps(action_spaces_dict, config)
    return DistributionMapper(union, config)


def find_inference_block(network: nn.Module) -> Optional[InferenceBlock]:
    """The outermost InferenceBlock of a network (itself or a sub-module), if any."""
    return next((module for module in network.modules() if isinstance(module, InferenceBlock)), None)


class BaseModelComposer(ABC):
    """Holds the spaces of an env, the distribution mapper, and the policy and critic composers.

    Args:
        action_spaces_dict: Sub-step key -> dict action space.
        observation_spaces_dict: Sub-step key -> dict observation space.
        agent_counts_dict: Sub-step key -> number of agents (defaults to one per sub-step).
        distribution_mapper_config: Rules of the :class:`DistributionMapper`.
    """

    def __init__(
        self,
        action_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        observation_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        agent_counts_dict: Optional[Mapping[StepKeyType, int]],
        distribution_mapper_config: DistributionMapperConfig,
    ) -> None:
        self.action_spaces_dict = dict(action_spaces_dict)
        self.observation_spaces_dict = dict(observation_spaces_dict)
        if list(self.action_spaces_dict) != list(self.observation_spaces_dict):
            raise ConfigurationError(
                f"action spaces have sub-steps {list(self.action_spaces_dict)}, observation spaces "
                f"{list(self.observation_spaces_dict)}; both need the same sub-step keys"
            )
        self.agent_counts_dict = {key: 1 for key in self.action_spaces_dict} | dict(agent_counts_dict or {})
        self.distribution_mapper_config = distribution_mapper_config
        self._distribution_mapper = build_distribution_mapper(self.action_spaces_dict, distribution_mapper_config)
        self._policy: Optional[BasePolicyComposer] = None
        self._critic: Optional[CriticComposerInterface] = None

    @property
    def distribution_mapper(self) -> Union[DistributionMapper, dict[StepKeyType, DistributionMapper]]:
        """The distribution mapper (one over all heads, or one per sub-step when head names clash)."""
        return self._distribution_mapper

    @property
    def policy(self) -> Optional[BasePolicyComposer]:
        """The policy composer (has ``networks``), or None; subclasses set ``self._policy``."""
        return self._policy

    @property
    def critic(self) -> Optional[CriticComposerInterface]:
        """The critic composer (has ``networks``), or None; subclasses set ``self._critic``."""
        return self._critic

    def _compose_policy(self, policy: ConfigType, networks: Optional[list[Any]] = None) -> BasePolicyComposer:
        """Instantiates the policy composer config with the spaces and mapper (and template networks)."""
        extra = {} if networks is None else {"networks": networks}
        return Factory(BasePolicyComposer, ("maze.perception.models.policies",)).instantiate(
            policy,
            action_spaces_dict=self.action_spaces_dict,
            observation_spaces_dict=self.observation_spaces_dict,
            agent_counts_dict=self.agent_counts_dict,
            distribution_mapper=self.distribution_mapper,
            **extra,
        )

    def _compose_critic(self, critic: ConfigType, template: Optional[Any] = None) -> Optional[CriticComposerInterface]:
        """Instantiates the critic composer config (None for no critic).

        The critic's observation spaces include the policy's shared embeddings (extra policy
        outputs) as unbounded Box entries.

        Args:
            critic: The critic composer config.
            template: A model builder whose ``critic_net`` / ``state_action_critic_net``
                become the networks (template models); None when the config names networks.
        """
        critic = to_plain_config(critic)
        if critic is None:
            return None
        target = critic.get("_target_") if isinstance(critic, Mapping) else critic
        search = ("maze.perception.models.critics",)
        resolved = resolve_target(target, search) if isinstance(target, str) else target
        state_action = isinstance(resolved, type) and issubclass(resolved, BaseStateActionCriticComposer)
        extra: dict[str, Any] = {"action_spaces_dict": self.action_spaces_dict} if state_action else {}
        if template is not None:
            self._check_template_stacking(critic)
            extra["networks"] = [template.state_action_critic_net if state_action else template.critic_net]
        return Factory(CriticComposerInterface, search).instantiate(
            critic,
            observation_spaces_dict=self._critic_observation_spaces(),
            agent_counts_dict=self.agent_counts_dict,
            **extra,
        )

    def _check_template_stacking(self, critic: Any) -> None:
        """Rejects ``stack_observations`` for template critics when sub-steps share observation keys.

        Raises:
            ConfigurationError: Naming the keys that would be stacked.
        """
        if not (isinstance(critic, Mapping) and critic.get("stack_observations")):
            return
        counts: dict[str, int] = {}
        for space in self._critic_observation_spaces().values():
            for key in space.spaces:
                counts[key] = counts.get(key, 0) + 1
        stacked = [key for key, count in counts.items() if count > 1]
        if stacked:
            raise ConfigurationError(
                f"critic.stack_observations would stack {stacked} (present in several sub-steps) to (k, *shape), but "
                "template model builders take one observation per key. Set stack_observations: false (each sub-step "
                "is valued on the keys all sub-steps have), or use a CustomModelComposer with a critic network for "
                "the stacked shapes"
            )

    def _critic_observation_spaces(self) -> dict[StepKeyType, spaces.Dict]:
        embeddings = getattr(self.policy, "embedding_shapes", None)
        result = {}
        for step_key, space in self.observation_spaces_dict.items():
            shapes = embeddings(step_key) if embeddings is not None else {}
            extra = {key: spaces.Box(-np.inf, np.inf, shape=shape, dtype=np.float32) for key, shape in shapes.items()}
            result[step_key] = ordered_dict_space({**space.spaces, **extra})
        return result

    def torch_policy(self, device: Union[str, torch.device] = "cpu") -> TorchPolicy:
        """A :class:`TorchPolicy` over the policy networks, in eval mode (see :meth:`BasePolicyComposer.torch_policy`)."""
        return self.policy.torch_policy(device)

    def torch_actor_critic(self, device: Union[str, torch.device] = "cpu") -> TorchActorCritic:
        """A :class:`TorchActorCritic` over the policy and critic networks, in training mode.

        Raises:
            ConfigurationError: If the model has no critic.
        """
        if self.critic is None:
            raise ConfigurationError("the model has no critic; configure one (e.g. critic=template_state)")
        actor_critic = TorchActorCritic(self.torch_policy(device), self.critic.torch_critic(device), device)
        actor_critic.train()
        return actor_critic

    def spaces_config(self) -> SpacesConfig:
        """The spaces the models were built for, to be saved next to a checkpoint."""
        return SpacesConfig(self.action_spaces_dict, self.observation_spaces_dict, self.agent_counts_dict)

    def graph_structures(self) -> dict[str, InferenceGraphStructure]:
        """Graph data of every network built from an InferenceBlock (for graph PDFs), by name.

        Names are ``policy_<key>`` and ``critic_<key>``; plain torch networks are skipped.
        """
        structures: dict[str, InferenceGraphStructure] = {}
        for prefix, composer in (("policy", self.policy), ("critic", self.critic)):
            for key, network in composer.networks.items() if composer is not None else ():
                block = find_inference_block(network)
                if block is not None:
                    structures[network_name(prefix, key)] = inference_graph_structure(block)
        return structures


def build_model_composer(model: ConfigType, spaces_config: SpacesConfig, with_critic: bool = True) -> BaseModelComposer:
    """Instantiates a model composer config for stored spaces (optionally without its critic)."""
    extra: dict[str, Any] = {} if with_critic else {"critic": None}
    return Factory(BaseModelComposer).instantiate(
        model,
        action_spaces_dict=spaces_config.action_spaces_dict,
        observation_spaces_dict=spaces_config.observation_spaces_dict,
        agent_counts_dict=spaces_config.agent_counts_dict,
        **extra,
    )
