"""A policy that samples uniformly from the action space of the acting sub-step.

Action masks: an observation ``<head>_mask`` (1 = allowed, 0 = not) next to a ``Discrete``
action head ``<head>`` restricts that head's samples to the allowed actions, the convention
the perception models use as well. ``use_action_masks=False`` samples from the whole space.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping, Optional, Sequence

import numpy as np
from gymnasium import spaces
from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.utils.spaces import entry_of_actor, seed_spaces

__all__ = ["MASK_SUFFIX", "RandomPolicy"]

MASK_SUFFIX = "_mask"
"""An observation ``<head>_mask`` masks the ``Discrete`` action head ``<head>``."""


class RandomPolicy(Policy):
    """Samples actions from the action space of the actor that acts.

    The default sampling policy of observation-normalization statistics. With action masks
    in the observation (``<head>_mask`` for a ``Discrete`` head ``<head>``, see the module
    docs) only allowed actions are sampled; an all-zero mask samples action 0.

    Args:
        action_spaces_dict: Action space per sub-step key, usually ``env.action_spaces_dict``.
        seed: Optional seed of the action spaces' samplers.
        use_action_masks: Respect ``<head>_mask`` observations (False: sample from the whole
            space, ignoring masks).
    """

    def __init__(
        self,
        action_spaces_dict: Mapping[StepKeyType, spaces.Space],
        seed: Optional[int] = None,
        use_action_masks: bool = True,
    ) -> None:
        # Own copies: seeding must not touch (or share the generator of) the env's spaces.
        self.action_spaces_dict = copy.deepcopy(dict(action_spaces_dict))
        self.use_action_masks = use_action_masks
        if seed is not None:
            self.seed(seed)

    def seed(self, seed: int) -> None:
        """Seeds every sub-step's action space (each with a different offset)."""
        seed_spaces(self.action_spaces_dict.values(), seed)

    def compute_action(
        self,
        observation: Any,
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> Any:
        """Samples from the space of ``actor_id.step_key`` (``actor_id`` may be None for a single sub-step).

        Heads with a ``<head>_mask`` in ``observation`` sample only allowed actions (unless
        ``use_action_masks`` is False).
        """
        space = self._space(actor_id)
        masks = self._masks(observation, space)
        if not masks:
            return space.sample()
        return {key: sub.sample(mask=masks.get(key)) for key, sub in space.spaces.items()}

    def compute_top_action_candidates(
        self,
        observation: Any,
        num_candidates: Optional[int],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
    ) -> tuple[Sequence[Any], Sequence[float]]:
        """Samples ``num_candidates`` actions, each with the same probability."""
        count = num_candidates or 1
        space = self._space(actor_id)
        return [space.sample() for _ in range(count)], [1.0 / count] * count

    def _masks(self, observation: Any, space: spaces.Space) -> dict[str, np.ndarray]:
        """``head -> int8 [n]`` masks of the ``Discrete`` heads of ``space`` that ``observation`` masks."""
        if not self.use_action_masks or not isinstance(observation, Mapping) or not isinstance(space, spaces.Dict):
            return {}
        masks = {}
        for key, sub in space.spaces.items():
            mask = observation.get(f"{key}{MASK_SUFFIX}")
            if isinstance(sub, spaces.Discrete) and mask is not None and np.shape(mask) == (sub.n,):
                masks[key] = (np.asarray(mask) != 0).astype(np.int8)
        return masks

    def _space(self, actor_id: Optional[ActorID]) -> spaces.Space:
        return entry_of_actor("RandomPolicy", self.action_spaces_dict, actor_id, "action space")
