"""State critics V(s) for structured envs: shared, per sub-step, and delta critics."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

import torch
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.errors import ConfigurationError
from maze.perception.agent.state_critic_io import StateCriticInput, StateCriticOutput, StateCriticStepOutput
from maze.perception.agent.torch_model import TorchModel, network_name
from maze.perception.agent.torch_policy import observation_to_torch
from maze.perception.perception_utils import stack_and_flatten_spaces
from torch import nn

__all__ = [
    "critic_network",
    "value_of",
    "TorchDeltaStateCritic",
    "TorchSharedStateCritic",
    "TorchStateCritic",
    "TorchStepStateCritic",
]

PREV_VALUE_KEY = "prev_value"
"""The extra input of the delta critics of later sub-steps: the previous sub-step's value, ``[*batch, 1]``."""


def value_of(network: nn.Module, tensor_dict: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """Runs a critic network and returns its ``value`` output as ``[*batch]`` (a trailing 1 is dropped).

    Raises:
        ConfigurationError: If the network returns no ``value``.
    """
    output = network(tensor_dict)
    if "value" not in output:
        raise ConfigurationError(
            f"critic network {type(network).__name__} must return {{'value': ...}}, got {list(output)}"
        )
    value = output["value"]
    return value.squeeze(-1) if value.dim() > 0 and value.shape[-1] == 1 else value


def critic_network(
    networks: Mapping[Any, nn.Module], critic_id: Union[ActorID, StepKeyType, None], owner: str
) -> nn.Module:
    """The network of a critic id (an ActorID or a sub-step key; None when there is one network).

    Raises:
        KeyError: Naming the owner, the id and the known critics.
    """
    if critic_id is None and len(networks) == 1:
        return next(iter(networks.values()))
    key = critic_id[0] if isinstance(critic_id, tuple) else critic_id
    if key not in networks:
        raise KeyError(f"{owner} has no critic {critic_id!r}; critics: {list(networks)}")
    return networks[key]


class TorchStateCritic(TorchModel):
    """Base of the torch state critics: networks keyed by critic id, values of shape ``[*batch]``.

    Args:
        networks: Critic networks by key (a list gives keys 0, 1, ...); each maps a tensor
            dict to ``{'value': [*batch, 1]}``.
        obs_spaces_dict: Sub-step key -> dict observation space (including shared embeddings).
        device: Where the networks run.
    """

    def __init__(
        self,
        networks: Union[Mapping[Any, nn.Module], Sequence[nn.Module]],
        obs_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        device: Union[str, torch.device] = "cpu",
    ) -> None:
        super().__init__(device)
        items = networks.items() if isinstance(networks, Mapping) else enumerate(networks)
        self.networks: dict[Any, nn.Module] = {key: network.to(self.device) for key, network in items}
        if not self.networks:
            raise ConfigurationError(f"{type(self).__name__} needs at least one critic network")
        self.obs_spaces_dict = dict(obs_spaces_dict)

    def named_networks(self) -> dict[str, nn.Module]:
        """``critic_<key>`` -> network."""
        return {network_name("critic", key): network for key, network in self.networks.items()}

    @property
    def num_critics(self) -> int:
        """The number of critic networks."""
        return len(self.networks)

    @abstractmethod
    def predict_values(self, critic_input: StateCriticInput) -> StateCriticOutput:
        """The value of every sub-step of an env step, each ``[*batch]`` (with gradients)."""

    def predict_value(
        self, observation: Mapping[str, Any], critic_id: Union[ActorID, StepKeyType, None] = None
    ) -> torch.Tensor:
        """The value ``[*batch]`` of one observation dict (numpy or tensors) under critic ``critic_id``."""
        return value_of(self._network(critic_id), observation_to_torch(observation, self.device))

    def _network(self, critic_id: Union[ActorID, StepKeyType, None]) -> nn.Module:
        return critic_network(self.networks, critic_id, type(self).__name__)

    def _output(self, values: torch.Tensor, actor_id: Optional[ActorID]) -> StateCriticStepOutput:
        return StateCriticStepOutput(values=values, detached_values=values.detach(), actor_id=actor_id)


class TorchStepStateCritic(TorchStateCritic):
    """One critic network per sub-step key; each sub-step is valued by its own network."""

    def predict_values(self, critic_input: StateCriticInput) -> StateCriticOutput:
        """Values ``[*batch]`` per sub-step, each from the network of the sub-step's key."""
        return StateCriticOutput(
            [
                self._output(
                    value_of(self._network(step.actor_id), observation_to_torch(step.tensor_dict, self.device)),
                    step.actor_id,
                )
                for step in critic_input
            ]
        )


class TorchSharedStateCritic(TorchStateCritic):
    """One critic network shared by all sub-steps and actors (the default for gym-style envs).

    With ``stack_observations`` the network sees the observations of all sub-steps of the
    env step at once (keys present in several sub-steps stacked along a new dim after the
    batch dims, see :func:`~maze.perception.perception_utils.stack_and_flatten_spaces`),
    and every sub-step gets that one value.

    Args:
        networks: ``{0: network}`` (or a one-element list).
        obs_spaces_dict: Sub-step key -> dict observation space (including shared embeddings).
        device: Where the network runs.
        stack_observations: Value the stacked observations of all sub-steps.
    """

    def __init__(
        self,
        networks: Union[Mapping[Any, nn.Module], Sequence[nn.Module]],
        obs_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        device: Union[str, torch.device] = "cpu",
        stack_observations: bool = False,
    ) -> None:
        super().__init__(networks, obs_spaces_dict, device)
        if len(self.networks) != 1:
            raise ConfigurationError(f"TorchSharedStateCritic takes exactly one network, got {list(self.networks)}")
        self.stack_observations = stack_observations
        self._stacked_ranks = {
            key: len(space.shape) - 1
            for key, space in stack_and_flatten_spaces(self.obs_spaces_dict.values()).items()
            if sum(key in step_space.spaces for step_space in self.obs_spaces_dict.values()) > 1
        }

    def _network(self, critic_id: Union[ActorID, StepKeyType, None]) -> nn.Module:
        return next(iter(self.networks.values()))

    def predict_values(self, critic_input: StateCriticInput) -> StateCriticOutput:
        """One value per sub-step; with stacking the same value for all sub-steps."""
        network = self._network(None)
        if not self.stack_observations:
            return StateCriticOutput(
                [
                    self._output(value_of(network, observation_to_torch(step.tensor_dict, self.device)), step.actor_id)
                    for step in critic_input
                ]
            )
        values = value_of(network, self.stack_tensor_dicts([step.tensor_dict for step in critic_input]))
        return StateCriticOutput([self._output(values, step.actor_id) for step in critic_input])

    def stack_tensor_dicts(self, tensor_dicts: Sequence[Mapping[str, Any]]) -> dict[str, torch.Tensor]:
        """Joins the sub-steps' tensor dicts; keys of several sub-steps are stacked ``[*batch, k, *shape]``."""
        collected: dict[str, list[torch.Tensor]] = {}
        for tensor_dict in tensor_dicts:
            for key, value in observation_to_torch(tensor_dict, self.device).items():
                collected.setdefault(key, []).append(value)
        stacked = {}
        for key, values in collected.items():
            if len(values) == 1:
                stacked[key] = values[0]
            elif key in self._stacked_ranks:
                stacked[key] = torch.stack(values, dim=-self._stacked_ranks[key] - 1)
            else:
                raise ConfigurationError(
                    f"TorchSharedStateCritic: {key!r} occurs in {len(values)} sub-steps but not in several "
                    "sub-steps' observation spaces; add it to obs_spaces_dict so it can be stacked"
                )
        return stacked


class TorchDeltaStateCritic(TorchStateCritic):
    """The first sub-step has a regular critic; each later one predicts a delta to the previous value.

    The networks of later sub-steps get the previous sub-step's (detached) value as the
    extra input ``prev_value`` ``[*batch, 1]``; their value is ``prev_value + delta``.

    Args:
        networks: One network per sub-step key, in acting order.
        obs_spaces_dict: Sub-step key -> dict observation space.
        device: Where the networks run.
    """

    def predict_values(self, critic_input: StateCriticInput) -> StateCriticOutput:
        """Values per sub-step: first regular, then previous value plus predicted delta."""
        output = StateCriticOutput()
        previous: Optional[torch.Tensor] = None
        for step in critic_input:
            tensor_dict = observation_to_torch(step.tensor_dict, self.device)
            network = self._network(step.actor_id)
            if previous is None:
                values = value_of(network, tensor_dict)
            else:
                prev = previous.detach()
                values = prev + value_of(network, {**tensor_dict, PREV_VALUE_KEY: prev.unsqueeze(-1)})
            output.append(self._output(values, step.actor_id))
            previous = values
        return output

    def predict_value(
        self, observation: Mapping[str, Any], critic_id: Union[ActorID, StepKeyType, None] = None
    ) -> torch.Tensor:
        """The value of one sub-step; later sub-steps need ``prev_value`` ``[*batch, 1]`` in ``observation``."""
        tensor_dict = observation_to_torch(observation, self.device)
        value = value_of(self._network(critic_id), tensor_dict)
        if PREV_VALUE_KEY in tensor_dict:
            value = tensor_dict[PREV_VALUE_KEY].squeeze(-1) + value
        return value
