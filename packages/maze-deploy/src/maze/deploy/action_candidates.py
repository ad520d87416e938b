"""Several candidate actions with their probabilities, in the policy's and in the env's format."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["ActionCandidates", "MazeActionCandidates"]


@dataclass(frozen=True)
class ActionCandidates:
    """The most likely actions of a policy (in its action space), most likely first.

    Attributes:
        actions: The candidate actions (dicts of the policy's action space).
        probabilities: The probability of each candidate.
    """

    actions: tuple[Any, ...]
    probabilities: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.actions or len(self.actions) != len(self.probabilities):
            raise ValueError(
                f"ActionCandidates needs at least one action and one probability per action, got "
                f"{len(self.actions)} actions and {len(self.probabilities)} probabilities"
            )

    def __len__(self) -> int:
        return len(self.actions)

    def __iter__(self) -> Iterator[tuple[Any, float]]:
        """Yields ``(action, probability)`` pairs, most likely first."""
        return iter(zip(self.actions, self.probabilities, strict=True))


@dataclass(frozen=True)
class MazeActionCandidates:
    """Candidates as MazeActions: what ``AgentDeployment.act`` returns when asked for candidates.

    Execute one of them; tell the deployment which one with ``executed_candidate`` in the
    next ``act`` or ``close`` (the default is the first, most likely one).

    Attributes:
        maze_actions: The candidates as MazeActions, most likely first.
        probabilities: The probability of each candidate.
        actions: The same candidates in the policy's action space.
    """

    maze_actions: tuple[Any, ...]
    probabilities: tuple[float, ...]
    actions: ActionCandidates

    def __len__(self) -> int:
        return len(self.maze_actions)

    def __iter__(self) -> Iterator[tuple[Any, float]]:
        """Yields ``(maze_action, probability)`` pairs, most likely first."""
        return iter(zip(self.maze_actions, self.probabilities, strict=True))
