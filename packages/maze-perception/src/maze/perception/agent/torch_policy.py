"""TorchPolicy: policy networks plus a distribution mapper, for structured (multi-step, multi-agent) envs."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Optional, Union

import numpy as np
import torch
from gymnasium import spaces
from maze.distributions import (
    CategoricalProbabilityDistribution,
    DictProbabilityDistribution,
    DistributionMapper,
    ProbabilityDistribution,
)
from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording.spaces_records import StructuredSpacesRecord
from maze.perception.agent.policy_output import PolicyOutput, PolicySubStepOutput
from maze.perception.agent.torch_model import network_name
from maze.perception.agent.torch_networks_model import NetworksType, TorchNetworksModel
from maze.perception.blocks.base import call_module
from maze.perception.perception_utils import observation_to_torch

__all__ = ["TorchPolicy"]

MapperType = Union[DistributionMapper, Mapping[StepKeyType, DistributionMapper]]
"""One mapper for the heads of all sub-steps, or one per sub-step key."""


_Head = tuple[str, type[ProbabilityDistribution], spaces.Space]
"""An action head of a network: name, distribution class and action space."""


_UNKNOWN = object()
"""Marks an actor whose network key is not cached yet."""


def _to_numpy(tensor: torch.Tensor) -> Any:
    array = tensor.numpy() if tensor.is_cpu else tensor.cpu().numpy()
    return array[()] if array.ndim == 0 else array


class TorchPolicy(TorchNetworksModel, Policy):
    """A structured policy backed by torch networks and a distribution mapper.

    Each actor is served by the network of its sub-step, or, for sub-steps listed in
    ``substeps_with_separate_agent_nets``, by the network keyed by its ``ActorID``. A
    network maps the observation dict to a dict of logits per action head; further outputs
    (shared embeddings) are passed on to trainers as ``embedding_logits``.

    Observations may be single (no batch dim) or batched (``[B, ...]``); actions follow.

    Modes: :meth:`eval` before acting (dropout off, so deterministic actions are
    reproducible; composers return their policies in eval mode), :meth:`train` before
    computing training losses. The mode is a property of the networks, so models sharing
    networks (e.g. a policy and the actor-critic built from the same composer) share it.

    Args:
        networks: Networks by sub-step key (ActorID for separate agent nets), or a list (keys 0, 1, ...).
        distribution_mapper: One mapper over the heads of all sub-steps, or one per sub-step key.
        device: Where the networks run; ``"cuda"`` without CUDA falls back to the CPU with a warning.
        substeps_with_separate_agent_nets: Sub-step keys whose agents each have their own network.
        observation_spaces_dict: Sub-step key -> dict observation space; needed for ``Discrete``
            observations (integers ``[*batch]``), which the networks take as ``[*batch, 1]``.
    """

    network_prefix = "policy"

    def __init__(
        self,
        networks: NetworksType,
        distribution_mapper: MapperType,
        device: Union[str, torch.device] = "cpu",
        substeps_with_separate_agent_nets: Optional[Collection[StepKeyType]] = None,
        observation_spaces_dict: Optional[Mapping[StepKeyType, spaces.Dict]] = None,
    ) -> None:
        super().__init__(networks, device, observation_spaces_dict)
        self.distribution_mapper = distribution_mapper
        self.substeps_with_separate_agent_nets = set(substeps_with_separate_agent_nets or ())
        self._heads: dict[Any, tuple[_Head, ...]] = {}
        self._keys: dict[Optional[ActorID], Any] = {}

    def seed(self, seed: int) -> None:
        """Seeds torch's global generator, which action sampling draws from."""
        torch.manual_seed(seed)

    def network_key(self, actor_id: Optional[ActorID]) -> Any:
        """The key of the network that serves ``actor_id``.

        Raises:
            ValueError: If ``actor_id`` is None but the policy has several networks.
            KeyError: If no network serves the actor.
        """
        if actor_id is None:
            if len(self.networks) != 1:
                raise ValueError(
                    f"TorchPolicy has networks {list(self.networks)}; pass actor_id (e.g. env.actor_id()) to pick one"
                )
            key = next(iter(self.networks))
            self._keys[None] = key
            return key
        key = actor_id if actor_id[0] in self.substeps_with_separate_agent_nets else actor_id[0]
        if key not in self.networks:
            raise KeyError(f"TorchPolicy has no network for actor {actor_id}; networks: {list(self.networks)}")
        self._keys[actor_id] = key
        return key

    def _mapper(self, step_key: Any) -> DistributionMapper:
        if isinstance(self.distribution_mapper, DistributionMapper):
            return self.distribution_mapper
        try:
            return self.distribution_mapper[step_key]
        except KeyError:
            raise KeyError(
                f"TorchPolicy has no distribution mapper for sub-step {step_key!r}; it has "
                f"{list(self.distribution_mapper)}"
            ) from None

    def _heads_of(self, key: Any, output: Mapping[str, torch.Tensor]) -> tuple[_Head, ...]:
        """The action heads among a network's outputs, with distribution class and space (cached per network)."""
        heads = self._heads.get(key)
        if heads is None:
            mapper = self._mapper(key[0] if isinstance(key, tuple) else key)
            space = mapper.action_space
            heads = tuple(
                (head, mapper.distribution_class(head), space[head]) for head in output if head in space.spaces
            )
            per_step = not isinstance(self.distribution_mapper, DistributionMapper)
            if not heads or (per_step and len(heads) != len(space.spaces)):
                raise ConfigurationError(
                    f"policy network {network_name('policy', key)!r} returns {list(output)}, but the action heads "
                    f"are {list(space.spaces)}; the network must return logits for every head of its sub-step"
                )
            self._heads[key] = heads
        return heads

    def _forward(self, observation: Mapping[str, Any], actor_id: Optional[ActorID]) -> tuple[Any, dict, dict]:
        """Runs the actor's network (key cached per actor); returns its key, the action logits and the other outputs."""
        key = self._keys.get(actor_id, _UNKNOWN)
        if key is _UNKNOWN:
            key = self.network_key(actor_id)
        tensors = observation_to_torch(observation, self._device, self.discrete_observation_keys)
        output = call_module(self.networks[key], tensors)
        logits = {head: output[head] for head, _, _ in self._heads_of(key, output)}
        if len(logits) == len(output):
            return key, logits, {}
        return key, logits, {name: value for name, value in output.items() if name not in logits}

    def _head_distributions(
        self, key: Any, logits: Mapping[str, torch.Tensor], temperature: float
    ) -> dict[str, ProbabilityDistribution]:
        """Head -> distribution of network ``key``'s action heads for their logits ``[*batch, *logits_shape]``."""
        return {
            head: distribution_class(logits=logits[head], action_space=space, temperature=temperature)
            for head, distribution_class, space in self._heads_of(key, logits)
        }

    def _distribution(
        self, key: Any, logits: Mapping[str, torch.Tensor], temperature: float
    ) -> DictProbabilityDistribution:
        """The joint distribution of network ``key``'s action heads."""
        return DictProbabilityDistribution(self._head_distributions(key, logits, temperature))

    def compute_action(
        self,
        observation: Mapping[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, Any]:
        """Samples (or, if ``deterministic``, takes the most likely) action of ``actor_id``.

        Args:
            observation: Observation dict, single (``[*shape]``) or batched (``[B, *shape]``).
            maze_state: Unused.
            env: Unused.
            actor_id: The acting actor; may be None when the policy has a single network.
            deterministic: Take the mode of the distribution instead of sampling.

        Returns:
            Action head -> numpy action (``[*action_shape]`` or ``[B, *action_shape]``).
        """
        with torch.inference_mode():
            key, logits, _ = self._forward(observation, actor_id)
            actions: dict[str, Any] = {}
            for head, distribution_class, space in self._heads[key]:  # cached by _forward
                actions[head] = _to_numpy(distribution_class.sample_from_logits(logits[head], space, deterministic))
            return actions

    def compute_top_action_candidates(
        self,
        observation: Mapping[str, Any],
        num_candidates: Optional[int],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
    ) -> tuple[list[dict[str, Any]], list[float]]:
        """The ``num_candidates`` most likely joint actions of a single observation (categorical heads only).

        Returns:
            The actions and their joint probabilities, most likely first (all combinations for None).

        Raises:
            NotImplementedError: For heads whose distribution is not categorical.
        """
        with torch.inference_mode():
            key, logits, _ = self._forward(observation, actor_id)
            distribution = self._distribution(key, logits, 1.0)
        candidates: list[tuple[dict[str, Any], float]] = [({}, 1.0)]
        for head, head_dist in distribution.distribution_dict.items():
            if not isinstance(head_dist, CategoricalProbabilityDistribution) or head_dist.dist.probs.dim() != 1:
                raise NotImplementedError(
                    f"action candidates need categorical heads of a single observation; head {head!r} has a "
                    f"{type(head_dist).__name__} with logits {tuple(logits[head].shape)}"
                )
            probs = head_dist.dist.probs
            count = probs.numel() if num_candidates is None else min(num_candidates, probs.numel())
            top_probs, top_index = torch.topk(probs, count)
            options = [
                (int(index) + head_dist.start, float(prob)) for prob, index in zip(top_probs, top_index, strict=True)
            ]
            candidates = [
                ({**action, head: np.int64(option)}, prob * option_prob)
                for action, prob in candidates
                for option, option_prob in options
            ]
            candidates.sort(key=lambda item: -item[1])
            candidates = candidates[:num_candidates] if num_candidates is not None else candidates
        return [action for action, _ in candidates], [prob for _, prob in candidates]

    def compute_logits_dict(
        self, observation: Mapping[str, Any], actor_id: Optional[ActorID] = None
    ) -> dict[str, torch.Tensor]:
        """The action logits (with gradients) of ``actor_id``'s network, head -> ``[*batch, *logits_shape]``."""
        return self._forward(observation, actor_id)[1]

    def logits_dict_to_distribution(
        self, logits_dict: Mapping[str, torch.Tensor], actor_id: Optional[ActorID] = None, temperature: float = 1.0
    ) -> DictProbabilityDistribution:
        """The joint action distribution for logits of ``actor_id``'s sub-step."""
        return self._distribution(self.network_key(actor_id), logits_dict, temperature)

    def compute_substep_policy_output(
        self, observation: Mapping[str, Any], actor_id: Optional[ActorID] = None, temperature: float = 1.0
    ) -> PolicySubStepOutput:
        """Logits, distribution and shared embeddings (with gradients) of one sub-step, batched or not."""
        key, logits, embeddings = self._forward(observation, actor_id)
        return PolicySubStepOutput(
            action_logits=logits,
            prob_dist=self._distribution(key, logits, temperature),
            embedding_logits=embeddings,
            actor_id=actor_id,
        )

    def compute_policy_output(self, record: StructuredSpacesRecord, temperature: float = 1.0) -> PolicyOutput:
        """The sub-step outputs for every sub-step of a (typically batched) structured record."""
        return PolicyOutput(
            [
                self.compute_substep_policy_output(substep.observation, substep.actor_id, temperature)
                for substep in record.substep_records
            ]
        )
