"""CustomModelComposer: policy and critic networks written by the user and named in the config."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

from gymnasium import spaces
from maze.distributions import DistributionMapperConfig
from maze.env.core.actor import StepKeyType
from maze.env.utils.factory import ConfigType
from maze.perception.models.base_model_composer import BaseModelComposer

__all__ = ["CustomModelComposer"]


class CustomModelComposer(BaseModelComposer):
    """Composes models from explicit network definitions.

    Policy networks get the constructor arguments ``obs_shapes`` and
    ``action_logits_shapes`` (plus their config's own) and return logits per action head;
    state critic networks get ``obs_shapes`` and return ``{'value': [B, 1]}``; Q networks
    get ``obs_shapes`` (observations plus non-discrete actions) and ``output_shapes``. Extra
    policy outputs are shared embeddings: the critic finds them in its ``obs_shapes`` and inputs.

    Args:
        action_spaces_dict: Sub-step key -> dict action space.
        observation_spaces_dict: Sub-step key -> dict observation space.
        agent_counts_dict: Sub-step key -> number of agents.
        distribution_mapper_config: Rules of the distribution mapper.
        policy: Policy composer config with ``networks`` (and ``substeps_with_separate_agent_nets``).
        critic: Critic composer config with ``networks``, or None.
    """

    def __init__(
        self,
        action_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        observation_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        agent_counts_dict: Optional[Mapping[StepKeyType, int]],
        distribution_mapper_config: DistributionMapperConfig,
        policy: ConfigType,
        critic: Optional[ConfigType] = None,
    ) -> None:
        super().__init__(action_spaces_dict, observation_spaces_dict, agent_counts_dict, distribution_mapper_config)
        self._policy = self._compose_policy(policy)
        self._critic = self._compose_critic(critic)
