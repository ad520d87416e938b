"""Interface of policy composers: they build the policy networks of a model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping
from typing import Any, Optional, Union

import torch
from gymnasium import spaces
from maze.distributions import DistributionMapper
from maze.env.core.actor import StepKeyType
from maze.perception.agent.torch_policy import TorchPolicy
from maze.perception.perception_utils import observation_spaces_to_in_shapes
from torch import nn

__all__ = ["BasePolicyComposer"]


class BasePolicyComposer(ABC):
    """Builds policy networks for the sub-steps (and agents) of a structured env.

    Args:
        action_spaces_dict: Sub-step key -> dict action space.
        observation_spaces_dict: Sub-step key -> dict observation space.
        agent_counts_dict: Sub-step key -> number of agents.
        distribution_mapper: One mapper over all heads, or one per sub-step key.
    """

    def __init__(
        self,
        action_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        observation_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        agent_counts_dict: Optional[Mapping[StepKeyType, int]],
        distribution_mapper: Union[DistributionMapper, Mapping[StepKeyType, DistributionMapper]],
    ) -> None:
        self.action_spaces_dict = dict(action_spaces_dict)
        self.observation_spaces_dict = dict(observation_spaces_dict)
        self.agent_counts_dict = {key: 1 for key in self.action_spaces_dict} | dict(agent_counts_dict or {})
        self.distribution_mapper = distribution_mapper
        self.obs_shapes = observation_spaces_to_in_shapes(self.observation_spaces_dict)

    @property
    @abstractmethod
    def networks(self) -> dict[Any, nn.Module]:
        """The policy networks by sub-step key (ActorID for separate agent nets)."""

    @property
    def substeps_with_separate_agent_nets(self) -> Collection[StepKeyType]:
        """Sub-step keys whose agents have their own networks."""
        return ()

    def mapper(self, step_key: StepKeyType) -> DistributionMapper:
        """The distribution mapper of the sub-step ``step_key``."""
        if isinstance(self.distribution_mapper, DistributionMapper):
            return self.distribution_mapper
        return self.distribution_mapper[step_key]

    def action_logits_shapes(self, step_key: StepKeyType) -> dict[str, tuple[int, ...]]:
        """Action head -> logits shape the network of ``step_key`` must produce."""
        mapper = self.mapper(step_key)
        return {head: mapper.required_logits_shape(head) for head in self.action_spaces_dict[step_key].spaces}

    def torch_policy(self, device: Union[str, torch.device] = "cpu") -> TorchPolicy:
        """A :class:`TorchPolicy` over these networks, in eval mode (ready to act; call ``train()`` to train it).

        The networks are shared with other models built from this composer, and so is their mode.
        """
        policy = TorchPolicy(
            networks=self.networks,
            distribution_mapper=self.distribution_mapper,
            device=device,
            substeps_with_separate_agent_nets=self.substeps_with_separate_agent_nets,
            observation_spaces_dict=self.observation_spaces_dict,
        )
        policy.eval()
        return policy
