"""Combines one flat policy per sub-step key into a structured policy."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from maze.env.agent.policy import FlatPolicy, Policy
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.utils.spaces import entry_of_actor, seed_spaces

__all__ = ["DefaultPolicy"]


class DefaultPolicy(Policy):
    """Asks the flat policy of the acting sub-step for the action.

    Args:
        policies: Flat policy per sub-step key.
    """

    def __init__(self, policies: Mapping[StepKeyType, FlatPolicy]) -> None:
        self.policies = dict(policies)

    def seed(self, seed: int) -> None:
        """Seeds each flat policy (each with a different offset)."""
        seed_spaces(self.policies.values(), seed)

    def compute_action(
        self,
        observation: dict[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, Any]:
        """The action of the flat policy of ``actor_id.step_key``."""
        return self._policy(actor_id).compute_action(observation, deterministic=deterministic)

    def compute_top_action_candidates(
        self,
        observation: dict[str, Any],
        num_candidates: Optional[int],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
    ) -> tuple[Sequence[dict[str, Any]], Sequence[float]]:
        """The candidates of the flat policy of ``actor_id.step_key``."""
        return self._policy(actor_id).compute_top_action_candidates(observation, num_candidates)

    def _policy(self, actor_id: Optional[ActorID]) -> FlatPolicy:
        return entry_of_actor("DefaultPolicy", self.policies, actor_id, "policy")
