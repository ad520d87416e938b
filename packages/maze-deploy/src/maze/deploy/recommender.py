"""Recommender: top-k candidates of a policy, each with a forecast from simulated rollouts (work in progress)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from maze.deploy.recommendation import Recommendation

__all__ = ["Recommender"]


class Recommender:
    """Computes recommendations for a policy with simulation envs from ``simulation_env_factory``."""

    def __init__(self, policy: Any, simulation_env_factory: Callable[[], Any]) -> None:
        self.policy = policy
        self.simulation_env_factory = simulation_env_factory

    def recommend(self, maze_state: Any, **kwargs: Any) -> Recommendation:
        """Not implemented yet."""
        raise NotImplementedError("Recommender.recommend is being implemented (issue 50)")

    def close(self, timeout: Optional[float] = None) -> None:
        """Stops worker processes."""
