"""The structured environment interface: exactly one active actor at a time."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Optional

import numpy as np
from maze.env.core._meta import StackTransparentMeta
from maze.env.core.actor import ActorID, StepKeyType

__all__ = ["StructuredEnv"]


class StructuredEnv(metaclass=StackTransparentMeta):
    """Generic control flow for multi-step, multi-agent and hierarchical envs.

    At every point of an episode exactly one actor is active; :meth:`actor_id` names it.
    A flat env is the special case where the actor is always ``ActorID(0, 0)``.

    Gymnasium semantics hold: ``reset(*, seed=None, options=None) -> (obs, info)`` and
    ``step(action) -> (obs, reward, terminated, truncated, info)``.
    """

    @abstractmethod
    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Executes the action of the current actor.

        Returns:
            ``(observation, reward, terminated, truncated, info)``.
        """

    @abstractmethod
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Starts a new episode; ``seed`` re-seeds the env's random generators."""

    def close(self) -> None:
        """Releases resources; calling it twice is allowed."""

    @abstractmethod
    def actor_id(self) -> ActorID:
        """Returns the actor that acts next."""

    def is_actor_done(self) -> bool:
        """True when the actor that just acted will not act again in this episode."""
        return False

    @property
    @abstractmethod
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        """Number of agents per sub-step key (``-1`` when the number is dynamic)."""

    def get_actor_rewards(self) -> Optional[np.ndarray]:
        """Per-actor split of the last env step's reward, or None when it is not split."""
        return None
