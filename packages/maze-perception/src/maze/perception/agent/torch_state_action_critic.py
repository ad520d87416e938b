"""State-action critics Q for structured envs: Q(s, ·) for discrete heads, Q(s, a) for the others."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional, Union

import torch
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.perception.agent.torch_networks_model import CriticIdType, NetworksType, TorchCriticModel
from maze.perception.blocks.base import call_module
from maze.perception.perception_utils import Q_VALUE_KEY, common_spaces, state_action_critic_shapes

__all__ = ["TorchSharedStateActionCritic", "TorchStateActionCritic", "TorchStepStateActionCritic", "q_values_of"]


class TorchStateActionCritic(TorchCriticModel):
    """Base of the torch state-action critics.

    Args:
        networks: Q networks by key (a list gives keys 0, 1, ...); each maps observations plus
            non-discrete actions to the outputs of :func:`state_action_critic_shapes`.
        action_spaces_dict: Sub-step key -> dict action space.
        device: Where the networks run.
        obs_spaces_dict: Sub-step key -> dict observation space (for ``Discrete`` observations,
            see :class:`TorchNetworksModel`; the shared critic picks the keys its network reads).
    """

    def __init__(
        self,
        networks: NetworksType,
        action_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        device: Union[str, torch.device] = "cpu",
        obs_spaces_dict: Optional[Mapping[StepKeyType, spaces.Dict]] = None,
    ) -> None:
        super().__init__(networks, device, obs_spaces_dict)
        self.action_spaces_dict = dict(action_spaces_dict)
        self.obs_spaces_dict = dict(obs_spaces_dict or {})
        self._q_shapes = {key: state_action_critic_shapes(space) for key, space in self.action_spaces_dict.items()}
        """Sub-step key -> (action input shapes, output shapes) of its Q network."""

    def _observation(self, observation: Mapping[str, Any]) -> Mapping[str, Any]:
        """The observation entries the network reads (all of them by default)."""
        return observation

    def predict_q_values(
        self,
        observation: Mapping[str, Any],
        actions: Optional[Mapping[str, Any]] = None,
        actor_id: Optional[ActorID] = None,
    ) -> dict[str, torch.Tensor]:
        """The Q values of one sub-step.

        Args:
            observation: Observation dict ``[*batch, *shape]`` (numpy or tensors).
            actions: The actions of the non-discrete heads ``[*batch, *action_shape]``; needed
                when the sub-step has such heads.
            actor_id: The actor (selects the sub-step and network; None with a single sub-step).

        Returns:
            ``<head>_q_values`` ``[*batch, n]`` per discrete head of the sub-step and ``q_value``
            ``[*batch]`` when it has non-discrete heads.

        Raises:
            KeyError: If an action the network needs is missing.
        """
        key, inputs, outputs = self.q_network_inputs(observation, actions, actor_id)
        return q_values_of(call_module(self.networks[key], inputs), outputs)

    def q_network_inputs(
        self,
        observation: Mapping[str, Any],
        actions: Optional[Mapping[str, Any]] = None,
        actor_id: Optional[ActorID] = None,
    ) -> tuple[Any, dict[str, torch.Tensor], tuple[str, ...]]:
        """What :meth:`predict_q_values` feeds a network (e.g. to run critics of one architecture on the same inputs).

        Args: as :meth:`predict_q_values`.

        Returns:
            The network key, its input tensors and the names of its Q outputs (for :func:`q_values_of`).

        Raises:
            KeyError: If an action the network needs is missing.
        """
        step_key = actor_id[0] if actor_id is not None else next(iter(self.action_spaces_dict))
        action_inputs, outputs = self._q_shapes[step_key]
        missing = [head for head in action_inputs if actions is None or head not in actions]
        if missing:
            raise KeyError(f"{type(self).__name__}: Q(s, a) needs the actions of the heads {missing}")
        inputs = {**self._observation(observation), **{head: actions[head] for head in action_inputs}}
        return self._key(actor_id), self._to_torch(inputs), tuple(outputs)


def q_values_of(output: Mapping[str, torch.Tensor], names: tuple[str, ...]) -> dict[str, torch.Tensor]:
    """The Q values among a network's outputs: ``<head>_q_values`` ``[*batch, n]`` and ``q_value`` ``[*batch]``."""
    q_values = {name: output[name] for name in names}
    if Q_VALUE_KEY in q_values:
        q_values[Q_VALUE_KEY] = q_values[Q_VALUE_KEY].squeeze(-1)
    return q_values


class TorchStepStateActionCritic(TorchStateActionCritic):
    """One Q network per sub-step key."""


class TorchSharedStateActionCritic(TorchStateActionCritic):
    """One Q network shared by all sub-steps and actors.

    The network reads the observation keys all sub-steps have (all keys when
    ``obs_spaces_dict`` is not given), takes the non-discrete action heads (the same in
    every sub-step) as inputs and values the discrete heads of all sub-steps; each sub-step
    gets the outputs of its own heads.
    """

    def __init__(
        self,
        networks: NetworksType,
        action_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        device: Union[str, torch.device] = "cpu",
        obs_spaces_dict: Optional[Mapping[StepKeyType, spaces.Dict]] = None,
    ) -> None:
        super().__init__(networks, action_spaces_dict, device, obs_spaces_dict)
        self.input_keys: Optional[list[str]] = (
            list(common_spaces(self.obs_spaces_dict.values()).spaces) if self.obs_spaces_dict else None
        )
        """The observation keys the network reads (those all sub-steps have); None for all."""

    def _key(self, critic_id: CriticIdType) -> Any:
        return next(iter(self.networks))

    def _observation(self, observation: Mapping[str, Any]) -> Mapping[str, Any]:
        if self.input_keys is None:
            return observation
        missing = [key for key in self.input_keys if key not in observation]
        if missing:
            raise KeyError(
                f"TorchSharedStateActionCritic reads the keys all sub-steps have, {self.input_keys}; the observation "
                f"lacks {missing}"
            )
        return {key: observation[key] for key in self.input_keys}
