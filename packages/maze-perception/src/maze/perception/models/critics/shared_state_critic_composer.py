"""One state critic shared by all sub-steps and actors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

import torch
from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.utils.factory import ConfigType
from maze.perception.agent.torch_state_critic import TorchSharedStateCritic
from maze.perception.models.critics.base_state_critic_composer import BaseStateCriticComposer
from maze.perception.perception_utils import (
    common_spaces,
    observation_spaces_to_in_shapes,
    stack_and_flatten_spaces,
)

__all__ = ["SharedStateCriticComposer"]


class SharedStateCriticComposer(BaseStateCriticComposer):
    """One value network (key 0) for all sub-steps; the default for gym-style envs.

    Its ``obs_shapes`` are the observation keys every sub-step has (each sub-step is valued on
    its own values of them, see :class:`TorchSharedStateCritic`), or, with
    ``stack_observations``, the union of all sub-steps' observations, stacked per key
    (``(k, *shape)`` for a key of ``k`` sub-steps).

    Args:
        observation_spaces_dict: Sub-step key -> dict observation space.
        agent_counts_dict: Sub-step key -> number of agents.
        networks: One network config (``_target_``), class or factory.
        stack_observations: Value the stacked observations of all sub-steps of an env step.
    """

    def __init__(
        self,
        observation_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        agent_counts_dict: Optional[Mapping[StepKeyType, int]],
        networks: Optional[Sequence[ConfigType]] = None,
        stack_observations: bool = False,
    ) -> None:
        self.stack_observations = stack_observations
        super().__init__(observation_spaces_dict, agent_counts_dict, networks)

    def _critic_obs_shapes(self) -> dict[Any, dict[str, tuple[int, ...]]]:
        merge = stack_and_flatten_spaces if self.stack_observations else common_spaces
        return observation_spaces_to_in_shapes({0: merge(self.observation_spaces_dict.values())})

    def torch_critic(self, device: Union[str, torch.device] = "cpu") -> Any:
        """A :class:`TorchSharedStateCritic` over the network."""
        return TorchSharedStateCritic(
            self.networks,
            self.observation_spaces_dict,
            device,
            stack_observations=self.stack_observations,
            value_ranks=self.value_ranks,
        )
