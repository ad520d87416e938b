"""TemplateModelComposer: policy and critic networks generated from the spaces by a model builder."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Optional

from gymnasium import spaces
from maze.distributions import DistributionMapperConfig
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import ConfigType, Factory, to_plain_config
from maze.perception.builders.base import BaseModelBuilder, with_hidden_units
from maze.perception.models.base_model_composer import BaseModelComposer

__all__ = ["TemplateModelComposer"]


class TemplateModelComposer(BaseModelComposer):
    """Composes template models: the model builder generates every network from the spaces.

    Args:
        action_spaces_dict: Sub-step key -> dict action space.
        observation_spaces_dict: Sub-step key -> dict observation space.
        agent_counts_dict: Sub-step key -> number of agents.
        distribution_mapper_config: Rules of the distribution mapper.
        model_builder: The builder config (e.g. ``maze.perception.builders.ConcatModelBuilder``
            with its modality mapping and config) or a builder instance.
        policy: The policy composer config (``_target_`` without ``networks``).
        critic: The critic composer config (``_target_`` without ``networks``), or None.
        hidden_units: A short way to set the dense layer sizes from the observations to the latent
            (``model.hidden_units=[64,64]``; see :func:`~maze.perception.builders.base.with_hidden_units`);
            None keeps those of ``model_builder``.

    Raises:
        ConfigurationError: If the policy or critic config names networks (template models build them),
            or ``hidden_units`` is given with a builder instance or does not fit the builder config.
    """

    def __init__(
        self,
        action_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        observation_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        agent_counts_dict: Optional[Mapping[StepKeyType, int]],
        distribution_mapper_config: DistributionMapperConfig,
        model_builder: ConfigType,
        policy: ConfigType,
        critic: Optional[ConfigType] = None,
        hidden_units: Optional[Sequence[int]] = None,
    ) -> None:
        super().__init__(action_spaces_dict, observation_spaces_dict, agent_counts_dict, distribution_mapper_config)
        for name, config in (("policy", policy), ("critic", critic)):
            config = to_plain_config(config)
            if isinstance(config, Mapping) and config.get("networks"):
                raise ConfigurationError(
                    f"TemplateModelComposer builds the {name} networks with its model_builder; remove {name}.networks "
                    "or use the CustomModelComposer"
                )
        if hidden_units is not None:
            if isinstance(model_builder, BaseModelBuilder):
                raise ConfigurationError(
                    "model.hidden_units rewrites the model_builder config, but model_builder is a built "
                    f"{type(model_builder).__name__}; pass its config or leave hidden_units out"
                )
            model_builder = with_hidden_units(model_builder, to_plain_config(hidden_units))
        self.model_builder = Factory(BaseModelBuilder, ("maze.perception.builders",)).instantiate(model_builder)
        self._policy = self._compose_policy(policy, [self.model_builder.policy_net])
        self._critic = self._compose_critic(critic, self.model_builder)
