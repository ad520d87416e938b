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
from maze.perception.agent.torch_networks_model import CriticIdType, NetworksType, TorchCriticModel
from maze.perception.perception_utils import common_spaces, stack_and_flatten_spaces
from torch import nn

__all__ = [
    "PREV_VALUE_KEY",
    "value_of",
    "TorchDeltaStateCritic",
    "TorchSharedStateCritic",
    "TorchStateCritic",
    "TorchStepStateCritic",
]

PREV_VALUE_KEY = "prev_value"
"""The extra input of the delta critics of later sub-steps: the previous sub-step's value, ``[*batch, 1]``."""


def value_of(network: nn.Module, tensor_dict: Mapping[str, torch.Tensor], value_rank: int = 1) -> torch.Tensor:
    """Runs a critic network and returns its ``value`` output as ``[*batch]``.

    Args:
        network: The critic network.
        tensor_dict: Its inputs ``[*batch, *shape]``.
        value_rank: The rank of the network's value per sample: 1 for ``[*batch, 1]`` (the trailing
            1 is dropped), 0 for ``[*batch]`` (returned as is).

    Raises:
        ConfigurationError: If the network returns no ``value``, or a rank-1 value whose last dim is not 1.
    """
    output = network(tensor_dict)
    if "value" not in output:
        raise ConfigurationError(
            f"critic network {type(network).__name__} must return {{'value': ...}}, got {list(output)}"
        )
    value = output["value"]
    if value_rank == 0:
        return value
    if value.dim() == 0 or value.shape[-1] != 1:
        raise ConfigurationError(
            f"critic network {type(network).__name__} returned a value of shape {tuple(value.shape)}, expected "
            "[*batch, 1]; for networks returning [*batch] pass value_ranks={<critic key>: 0}"
        )
    return value[..., 0]


class TorchStateCritic(TorchCriticModel):
    """Base of the torch state critics: networks keyed by critic id, values of shape ``[*batch]``.

    Args:
        networks: Critic networks by key (a list gives keys 0, 1, ...); each maps a tensor
            dict to ``{'value': [*batch, 1]}`` (or ``[*batch]``, see ``value_ranks``).
        obs_spaces_dict: Sub-step key -> dict observation space (including shared embeddings).
        device: Where the networks run.
        value_ranks: Critic key -> rank of its network's value per sample (1: ``[*batch, 1]``,
            the default; 0: ``[*batch]``). The composers pass what their dry run found.
    """

    def __init__(
        self,
        networks: NetworksType,
        obs_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        device: Union[str, torch.device] = "cpu",
        *,
        value_ranks: Optional[Mapping[Any, int]] = None,
    ) -> None:
        super().__init__(networks, device, obs_spaces_dict)
        self.obs_spaces_dict = dict(obs_spaces_dict)
        self.value_ranks = {key: int((value_ranks or {}).get(key, 1)) for key in self.networks}
        bad = {key: rank for key, rank in self.value_ranks.items() if rank not in (0, 1)}
        if bad:
            raise ConfigurationError(f"{type(self).__name__}: value ranks must be 0 or 1, got {bad}")

    @abstractmethod
    def predict_values(self, critic_input: StateCriticInput) -> StateCriticOutput:
        """The value of every sub-step of an env step, each ``[*batch]`` (with gradients)."""

    def predict_value(self, observation: Mapping[str, Any], critic_id: CriticIdType = None) -> torch.Tensor:
        """The value ``[*batch]`` of one observation dict (numpy or tensors) under critic ``critic_id``."""
        return self._value(self._key(critic_id), self._to_torch(observation))

    def _value(self, key: Any, tensor_dict: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """The value ``[*batch]`` of network ``key``."""
        return value_of(self.networks[key], tensor_dict, self.value_ranks[key])

    def _output(self, values: torch.Tensor, actor_id: Optional[ActorID]) -> StateCriticStepOutput:
        return StateCriticStepOutput(values=values, detached_values=values.detach(), actor_id=actor_id)


class TorchStepStateCritic(TorchStateCritic):
    """One critic network per sub-step key; each sub-step is valued by its own network."""

    def predict_values(self, critic_input: StateCriticInput) -> StateCriticOutput:
        """Values ``[*batch]`` per sub-step, each from the network of the sub-step's key."""
        return StateCriticOutput(
            [self._output(self.predict_value(step.tensor_dict, step.actor_id), step.actor_id) for step in critic_input]
        )


class TorchSharedStateCritic(TorchStateCritic):
    """One critic network shared by all sub-steps and actors (the default for gym-style envs).

    Without ``stack_observations`` the network sees the observation keys (and shared
    embeddings) that **every** sub-step has, taken from the sub-step being valued; keys only
    some sub-steps have are not network inputs (so no sub-step's value depends on another
    sub-step's observation). With a single sub-step that is the whole observation.

    With ``stack_observations`` the network sees the observations of all sub-steps of the
    env step at once (keys present in several sub-steps stacked along a new dim after the
    batch dims, see :func:`~maze.perception.perception_utils.stack_and_flatten_spaces`),
    and every sub-step gets that one value.

    Args:
        networks: ``{0: network}`` (or a one-element list).
        obs_spaces_dict: Sub-step key -> dict observation space (including shared embeddings).
        device: Where the network runs.
        stack_observations: Value the stacked observations of all sub-steps.
        value_ranks: See :class:`TorchStateCritic`.

    Raises:
        ConfigurationError: If there is not exactly one network, or, without stacking, no
            observation key common to all sub-steps.
    """

    def __init__(
        self,
        networks: NetworksType,
        obs_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        device: Union[str, torch.device] = "cpu",
        stack_observations: bool = False,
        *,
        value_ranks: Optional[Mapping[Any, int]] = None,
    ) -> None:
        super().__init__(networks, obs_spaces_dict, device, value_ranks=value_ranks)
        if len(self.networks) != 1:
            raise ConfigurationError(f"TorchSharedStateCritic takes exactly one network, got {list(self.networks)}")
        self.stack_observations = stack_observations
        self._stacked_ranks = {
            key: len(space.shape) - 1
            for key, space in stack_and_flatten_spaces(self.obs_spaces_dict.values()).items()
            if sum(key in step_space.spaces for step_space in self.obs_spaces_dict.values()) > 1
        }
        self.input_keys: Optional[list[str]] = (
            None if stack_observations else list(common_spaces(self.obs_spaces_dict.values()).spaces)
        )
        """The observation keys the network reads (those all sub-steps have); None with stacking."""

    def _key(self, critic_id: CriticIdType) -> Any:
        return next(iter(self.networks))

    def predict_value(self, observation: Mapping[str, Any], critic_id: CriticIdType = None) -> torch.Tensor:
        """The value ``[*batch]`` of one sub-step's observation (the stacked observations with stacking).

        Raises:
            KeyError: Without stacking, if an observation key common to all sub-steps is missing.
        """
        if self.input_keys is not None:
            missing = [key for key in self.input_keys if key not in observation]
            if missing:
                raise KeyError(
                    f"TorchSharedStateCritic values the keys all sub-steps have, {self.input_keys}; the observation "
                    f"lacks {missing}"
                )
            observation = {key: observation[key] for key in self.input_keys}
        return super().predict_value(observation, critic_id)

    def predict_values(self, critic_input: StateCriticInput) -> StateCriticOutput:
        """One value per sub-step; with stacking the same value for all sub-steps."""
        if not self.stack_observations:
            return StateCriticOutput(
                [self._output(self.predict_value(step.tensor_dict), step.actor_id) for step in critic_input]
            )
        values = self._value(self._key(None), self.stack_tensor_dicts([step.tensor_dict for step in critic_input]))
        return StateCriticOutput([self._output(values, step.actor_id) for step in critic_input])

    def stack_tensor_dicts(self, tensor_dicts: Sequence[Mapping[str, Any]]) -> dict[str, torch.Tensor]:
        """Joins the sub-steps' tensor dicts; keys of several sub-steps are stacked ``[*batch, k, *shape]``."""
        collected: dict[str, list[torch.Tensor]] = {}
        for tensor_dict in tensor_dicts:
            for key, value in self._to_torch(tensor_dict).items():
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
    """The first sub-step key has a regular critic; each later key predicts a delta to the previous value.

    Sub-steps of the first key (all its agents, in multi-agent envs) are valued by the
    regular network. The networks of later keys get the previous sub-step's (detached)
    value as the extra input ``prev_value`` ``[*batch, 1]``; their value is
    ``prev_value + delta``.

    Args:
        networks: One network per sub-step key, in acting order.
        obs_spaces_dict: Sub-step key -> dict observation space; its first key is the one
            without ``prev_value``.
        device: Where the networks run.
        value_ranks: See :class:`TorchStateCritic`.
    """

    def __init__(
        self,
        networks: NetworksType,
        obs_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        device: Union[str, torch.device] = "cpu",
        *,
        value_ranks: Optional[Mapping[Any, int]] = None,
    ) -> None:
        super().__init__(networks, obs_spaces_dict, device, value_ranks=value_ranks)
        self.first_key = next(iter(self.obs_spaces_dict), next(iter(self.networks)))
        """The sub-step key valued without ``prev_value``."""

    def predict_values(self, critic_input: StateCriticInput) -> StateCriticOutput:
        """Values per sub-step: regular for the first key, previous value plus predicted delta after it.

        Raises:
            ValueError: If a later key's sub-step comes before any sub-step of the first key.
        """
        output = StateCriticOutput()
        previous: Optional[torch.Tensor] = None
        for step in critic_input:
            observation = step.tensor_dict
            if self._key(step.actor_id) != self.first_key:
                if previous is None:
                    raise ValueError(
                        f"TorchDeltaStateCritic: sub-step {step.actor_id} comes before any sub-step of the first key "
                        f"{self.first_key!r}, whose value its delta builds on"
                    )
                observation = {**observation, PREV_VALUE_KEY: previous.detach().unsqueeze(-1)}
            previous = self.predict_value(observation, step.actor_id)
            output.append(self._output(previous, step.actor_id))
        return output

    def predict_value(self, observation: Mapping[str, Any], critic_id: CriticIdType = None) -> torch.Tensor:
        """The value of one sub-step; sub-steps after the first key need ``prev_value`` ``[*batch, 1]``.

        Raises:
            ValueError: If ``prev_value`` is missing for a later key, or given for the first key
                (whose network does not take it).
        """
        key = self._key(critic_id)
        if (PREV_VALUE_KEY in observation) == (key == self.first_key):
            raise ValueError(
                f"TorchDeltaStateCritic: the network of sub-step {key!r} "
                + ("does not take" if key == self.first_key else "needs")
                + f" {PREV_VALUE_KEY!r} (only sub-steps after the first key {self.first_key!r} do)"
            )
        tensor_dict = self._to_torch(observation)
        value = self._value(key, tensor_dict)
        if PREV_VALUE_KEY in tensor_dict:
            value = tensor_dict[PREV_VALUE_KEY][..., 0] + value
        return value
