"""A hand-written CartPole heuristic, handy for smoke tests and examples."""

from __future__ import annotations

from typing import Any, Optional

from maze.env.agent.policy import Policy
from maze.env.core.actor import ActorID

__all__ = ["DummyCartPolePolicy"]


class DummyCartPolePolicy(Policy):
    """Pushes the cart towards the side the pole is falling to.

    It looks at the pole angle plus its angular velocity (``observation[2] + observation[3]``)
    and balances CartPole far longer than random actions do.
    """

    def compute_action(
        self,
        observation: dict[str, Any],
        maze_state: Optional[Any] = None,
        env: Optional[Any] = None,
        actor_id: Optional[ActorID] = None,
        deterministic: bool = False,
    ) -> dict[str, int]:
        """Returns ``{'action': 1}`` (push right) when the pole tips right, else ``{'action': 0}``."""
        state = observation["observation"]
        return {"action": int(state[2] + state[3] > 0.0)}
