"""One state-action critic shared by all sub-steps and actors."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces
from maze.env.errors import ConfigurationError
from maze.perception.agent.torch_state_action_critic import TorchSharedStateActionCritic
from maze.perception.models.critics.base_state_action_critic_composer import BaseStateActionCriticComposer
from maze.perception.perception_utils import common_spaces, flatten_spaces, state_action_critic_shapes

__all__ = ["SharedStateActionCriticComposer"]


class SharedStateActionCriticComposer(BaseStateActionCriticComposer):
    """One Q network (key 0) for all sub-steps.

    The network reads the observation keys every sub-step has (see
    :class:`TorchSharedStateActionCritic`), takes the non-discrete action heads as inputs and
    returns ``<head>_q_values`` for the discrete heads of all sub-steps.

    Raises:
        ConfigurationError: If the sub-steps have different non-discrete action heads (a shared
            Q(s, a) needs the same action inputs in every sub-step), or no common observation key.
    """

    torch_critic_class = TorchSharedStateActionCritic

    def _critic_spaces(self) -> tuple[dict[Any, spaces.Dict], dict[Any, spaces.Dict]]:
        inputs = {key: state_action_critic_shapes(space)[0] for key, space in self.action_spaces_dict.items()}
        if any(step_inputs != next(iter(inputs.values())) for step_inputs in inputs.values()):
            raise ConfigurationError(
                f"SharedStateActionCriticComposer: the sub-steps take different non-discrete action inputs {inputs}; "
                "a shared Q(s, a) network needs the same ones in every sub-step. Use StepStateActionCriticComposer"
            )
        return (
            {0: common_spaces(self.observation_spaces_dict.values())},
            {0: flatten_spaces(self.action_spaces_dict.values())},
        )
