"""The first sub-step gets a regular critic; later sub-steps predict a delta to the previous value."""

from __future__ import annotations

from typing import Any, Union

import torch
from maze.perception.agent.torch_state_critic import PREV_VALUE_KEY, TorchDeltaStateCritic
from maze.perception.models.critics.base_state_critic_composer import BaseStateCriticComposer

__all__ = ["DeltaStateCriticComposer"]


class DeltaStateCriticComposer(BaseStateCriticComposer):
    """One value network per sub-step; networks after the first also get ``prev_value`` ``(1,)``."""

    def _critic_obs_shapes(self) -> dict[Any, dict[str, tuple[int, ...]]]:
        shapes = super()._critic_obs_shapes()
        for key in list(shapes)[1:]:
            shapes[key] = {**shapes[key], PREV_VALUE_KEY: (1,)}
        return shapes

    def torch_critic(self, device: Union[str, torch.device] = "cpu") -> Any:
        """A :class:`TorchDeltaStateCritic` over these networks."""
        return TorchDeltaStateCritic(self.networks, self.observation_spaces_dict, device, value_ranks=self.value_ranks)
