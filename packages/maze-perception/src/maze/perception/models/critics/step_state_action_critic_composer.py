"""Each sub-step gets its own state-action critic."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from maze.perception.agent.torch_state_action_critic import TorchStepStateActionCritic
from maze.perception.models.critics.base_state_action_critic_composer import BaseStateActionCriticComposer

__all__ = ["StateActionCriticComposer", "StepStateActionCriticComposer"]


class StepStateActionCriticComposer(BaseStateActionCriticComposer):
    """One Q network per sub-step key, over that sub-step's observations and actions."""

    torch_critic_class = TorchStepStateActionCritic

    def _critic_spaces(self) -> tuple[dict[Any, spaces.Dict], dict[Any, spaces.Dict]]:
        return self.observation_spaces_dict, self.action_spaces_dict


StateActionCriticComposer = StepStateActionCriticComposer
"""The default state-action critic composer (alias of :class:`StepStateActionCriticComposer`)."""
