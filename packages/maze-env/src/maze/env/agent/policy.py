"""The torch-free policy interfaces every agent implements."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Optional, Sequence

from maze.env.core._meta import StackTransparentMeta
from maze.env.core.actor import ActorID

__all__ = ["Policy", "FlatPolicy"]


class Policy(metaclass=StackTransparentMeta):
    """A structured policy: computes the action of whichever actor acts next.

    Runners, evaluators and deployments talk to agents only through this interface.
    Policies that need the MazeState or the env (heuristics, planners) say so with
    :meth:`needs_state` / :meth:`needs_env`; callers then pass them along.
    """

    def needs_state(self) -> bool:
        """True when :meth:`compute_action` needs ``maze_state``."""
        return False

    def needs_env(self) -> bool:
        """True when :meth:`compute_action` needs ``env``."""
        return False

    def seed(self, seed: int) -> None:
        """Seeds the policy's random generators."""

    def reset(self) -> None:
        """Called at the start of every episode (e.g. to clear recurrent state)."""

    @abstractmethod
    def compute_action(
        self,
        observation: dict[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, Any]:
        """Returns the action of actor ``actor_id`` (the only actor of a flat env when None)."""

    def compute_top_action_candidates(
        self,
        observation: dict[str, Any],
        num_candidates: Optional[int],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
    ) -> tuple[Sequence[dict[str, Any]], Sequence[float]]:
        """Returns up to ``num_candidates`` actions with their probabilities, most likely first."""
        raise NotImplementedError(f"{type(self).__name__} cannot rank action candidates")


class FlatPolicy(metaclass=StackTransparentMeta):
    """A policy of a single actor (typically a heuristic), combined by :class:`DefaultPolicy`."""

    def seed(self, seed: int) -> None:
        """Seeds the policy's random generators."""

    @abstractmethod
    def compute_action(self, observation: dict[str, Any], deterministic: bool = False) -> dict[str, Any]:
        """Returns the action for ``observation``."""

    def compute_top_action_candidates(
        self, observation: dict[str, Any], num_candidates: Optional[int]
    ) -> tuple[Sequence[dict[str, Any]], Sequence[float]]:
        """Returns up to ``num_candidates`` actions with their probabilities, most likely first."""
        raise NotImplementedError(f"{type(self).__name__} cannot rank action candidates")
