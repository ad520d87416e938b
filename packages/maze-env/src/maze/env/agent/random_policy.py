"""A policy that samples uniformly from the action space of the acting sub-step."""

from __future__ import annotations

import copy
from typing import Any, Mapping, Optional, Sequence

from gymnasium import spaces
from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.utils.spaces import entry_of_actor, seed_spaces

__all__ = ["RandomPolicy"]


class RandomPolicy(Policy):
    """Samples actions from the action space of the actor that acts.

    The default sampling policy of observation-normalization statistics.

    Args:
        action_spaces_dict: Action space per sub-step key, usually ``env.action_spaces_dict``.
        seed: Optional seed of the action spaces' samplers.
    """

    def __init__(self, action_spaces_dict: Mapping[StepKeyType, spaces.Space], seed: Optional[int] = None) -> None:
        # Own copies: seeding must not touch (or share the generator of) the env's spaces.
        self.action_spaces_dict = copy.deepcopy(dict(action_spaces_dict))
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
        """Samples from the space of ``actor_id.step_key`` (``actor_id`` may be None for a single sub-step)."""
        return self._space(actor_id).sample()

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

    def _space(self, actor_id: Optional[ActorID]) -> spaces.Space:
        return entry_of_actor("RandomPolicy", self.action_spaces_dict, actor_id, "action space")
