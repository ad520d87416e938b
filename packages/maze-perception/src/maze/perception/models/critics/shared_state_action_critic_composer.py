"""One state-action critic shared by all sub-steps and actors."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from maze.perception.agent.torch_state_action_critic import TorchSharedStateActionCritic
from maze.perception.models.critics.base_state_action_critic_composer import BaseStateActionCriticComposer
from maze.perception.perception_utils import flatten_spaces

__all__ = ["SharedStateActionCriticComposer"]


class SharedStateActionCriticComposer(BaseStateActionCriticComposer):
    """One Q network (key 0) over the union of all sub-steps' observations and action heads."""

    torch_critic_class = TorchSharedStateActionCritic

    def _critic_spaces(self) -> tuple[dict[Any, spaces.Dict], dict[Any, spaces.Dict]]:
        return (
            {0: flatten_spaces(self.observation_spaces_dict.values())},
            {0: flatten_spaces(self.action_spaces_dict.values())},
        )
