"""maze-perception's aliases for old ``_target_`` paths (see :mod:`maze.env.utils.compat_aliases`).

Registered under the entry point group ``maze.compat_aliases``; imports nothing (not torch).
"""

from __future__ import annotations

__all__ = ["ALIASES"]

ALIASES: dict[str, str] = {
    "maze.core.agent.torch_policy.TorchPolicy": "maze.perception.agent.torch_policy.TorchPolicy",
    "maze.core.agent.torch_state_critic.TorchSharedStateCritic": (
        "maze.perception.agent.torch_state_critic.TorchSharedStateCritic"
    ),
    "maze.core.agent.torch_actor_critic.TorchActorCritic": "maze.perception.agent.torch_actor_critic.TorchActorCritic",
}
"""Old path -> the path of maze-perception's class."""
