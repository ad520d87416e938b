"""Each sub-step gets its own state critic."""

from __future__ import annotations

from typing import Any, Union

import torch
from maze.perception.agent.torch_state_critic import TorchStepStateCritic
from maze.perception.models.critics.base_state_critic_composer import BaseStateCriticComposer

__all__ = ["StateCriticComposer", "StepStateCriticComposer"]


class StepStateCriticComposer(BaseStateCriticComposer):
    """One value network per sub-step key, seeing that sub-step's observations."""

    def torch_critic(self, device: Union[str, torch.device] = "cpu") -> Any:
        """A :class:`TorchStepStateCritic` over these networks."""
        return TorchStepStateCritic(self.networks, self.observation_spaces_dict, device, value_ranks=self.value_ranks)


StateCriticComposer = StepStateCriticComposer
"""The default state critic composer (alias of :class:`StepStateCriticComposer`)."""
