"""Composes the networks of a probabilistic policy (logits -> action distribution)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, Optional, Union

from gymnasium import spaces
from maze.distributions import DistributionMapper
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.utils.factory import ConfigType
from maze.perception.agent.torch_model import network_name
from maze.perception.models.network_factory import dry_run_output_shapes, instantiate_networks
from maze.perception.models.policies.base_policy_composer import BasePolicyComposer
from maze.perception.models.policies.state_independent_std import StateIndependentStd, log_std_heads
from torch import nn

__all__ = ["ProbabilisticPolicyComposer"]


class ProbabilisticPolicyComposer(BasePolicyComposer):
    """Builds one policy network per sub-step, or per agent for ``substeps_with_separate_agent_nets``.

    Every network is constructed with ``obs_shapes`` (observation key -> shape) and
    ``action_logits_shapes`` (action head -> logits shape) on top of its config's own
    arguments, and must return a dict with the logits of every action head of its
    sub-step. Further outputs (e.g. ``latent``) are shared embeddings; their shapes are
    found by one dry forward pass at construction (:meth:`embedding_shapes`).

    Args:
        action_spaces_dict: Sub-step key -> dict action space.
        observation_spaces_dict: Sub-step key -> dict observation space.
        agent_counts_dict: Sub-step key -> number of agents.
        distribution_mapper: One mapper over all heads, or one per sub-step key.
        networks: Network configs (``_target_``), classes or factories: one for all sub-steps
            or one per sub-step.
        substeps_with_separate_agent_nets: Sub-step keys whose agents each get a network
            (keyed ``ActorID(step_key, agent_id)``).
        state_independent_std: The log-stds of Gaussian heads are learned parameters (initially 0, std 1)
            instead of network outputs (see :mod:`~maze.perception.models.policies.state_independent_std`).

    Raises:
        ConfigurationError: For a wrong number of networks, an unknown sub-step key, or a
            network that misses action heads or returns logits of the wrong shape.
    """

    def __init__(
        self,
        action_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        observation_spaces_dict: Mapping[StepKeyType, spaces.Dict],
        agent_counts_dict: Optional[Mapping[StepKeyType, int]],
        distribution_mapper: Union[DistributionMapper, Mapping[StepKeyType, DistributionMapper]],
        networks: Sequence[ConfigType],
        substeps_with_separate_agent_nets: Optional[Collection[StepKeyType]] = None,
        state_independent_std: bool = False,
    ) -> None:
        super().__init__(action_spaces_dict, observation_spaces_dict, agent_counts_dict, distribution_mapper)
        self._separate = list(substeps_with_separate_agent_nets or ())
        unknown = [key for key in self._separate if key not in self.action_spaces_dict]
        if unknown:
            raise ConfigurationError(
                f"substeps_with_separate_agent_nets names the sub-steps {unknown}; the env has {list(self.action_spaces_dict)}"
            )
        dynamic = [key for key in self._separate if self.agent_counts_dict.get(key, 1) < 0]
        if dynamic:
            raise ConfigurationError(
                f"substeps_with_separate_agent_nets names the sub-steps {dynamic}, whose agent count is dynamic (-1): "
                "there is no fixed set of agents to give networks; let their agents share one network"
            )
        groups = {
            step_key: (
                [ActorID(step_key, agent) for agent in range(self.agent_counts_dict[step_key])]
                if step_key in self._separate
                else [step_key]
            )
            for step_key in self.action_spaces_dict
        }
        self._networks = instantiate_networks(networks, groups, self._shape_kwargs, type(self).__name__)
        self._embedding_shapes = {key: self._check_outputs(key, network) for key, network in self._networks.items()}
        if state_independent_std:
            self._networks = {key: self._with_state_independent_std(key, net) for key, net in self._networks.items()}

    def _with_state_independent_std(self, key: Any, network: nn.Module) -> nn.Module:
        """The network with learned log-std parameters for its Gaussian heads (unchanged without such heads)."""
        step_key = self._step_key(key)
        shapes = self.action_logits_shapes(step_key)
        mapper = self.mapper(step_key)
        heads = log_std_heads({head: mapper.distribution_class(head) for head in shapes})
        return StateIndependentStd(network, {head: shapes[head] for head in heads}) if heads else network

    @staticmethod
    def _step_key(key: Any) -> StepKeyType:
        return key[0] if isinstance(key, ActorID) else key

    def _shape_kwargs(self, key: Any) -> dict[str, Any]:
        step_key = self._step_key(key)
        return {"obs_shapes": self.obs_shapes[step_key], "action_logits_shapes": self.action_logits_shapes(step_key)}

    def _check_outputs(self, key: Any, network: nn.Module) -> dict[str, tuple[int, ...]]:
        """Checks the heads and logits shapes of a network; returns the shapes of its extra outputs."""
        step_key = self._step_key(key)
        shapes = dry_run_output_shapes(network, self.obs_shapes[step_key])
        for head, expected in self.action_logits_shapes(step_key).items():
            if head not in shapes:
                raise ConfigurationError(
                    f"policy network {network_name('policy', key)!r} ({type(network).__name__}) returns {list(shapes)} "
                    f"but not the action head {head!r}"
                )
            if shapes[head] != expected:
                raise ConfigurationError(
                    f"policy network {network_name('policy', key)!r} returns logits {shapes[head]} for head {head!r}, "
                    f"but its distribution needs {expected}"
                )
        return {name: shape for name, shape in shapes.items() if name not in self.action_spaces_dict[step_key].spaces}

    @property
    def networks(self) -> dict[Any, nn.Module]:
        """The policy networks by sub-step key (ActorID for separate agent nets)."""
        return self._networks

    @property
    def substeps_with_separate_agent_nets(self) -> list[StepKeyType]:
        """Sub-step keys whose agents have their own networks."""
        return self._separate

    def embedding_shapes(self, step_key: StepKeyType) -> dict[str, tuple[int, ...]]:
        """The extra (shared embedding) outputs of the sub-step's network(s): key -> shape."""
        key = ActorID(step_key, 0) if step_key in self._separate else step_key
        return dict(self._embedding_shapes[key])
