"""MazeMultiAgentEnv: a structured Maze env (one agent per sub-step) as an RLlib multi-agent env."""

from __future__ import annotations

from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.rllib.env import FACTORY_KEY
from ray.rllib.env.multi_agent_env import MultiAgentEnv

__all__ = ["MazeMultiAgentEnv", "agent_id"]


def agent_id(step_key: Any) -> str:
    """The RLlib agent (and module) id of a Maze sub-step."""
    return str(step_key)


class MazeMultiAgentEnv(MultiAgentEnv):
    """A structured Maze env (several sub-steps, one agent each) as an RLlib turn-based multi-agent env.

    Each sub-step is an agent (id ``str(step_key)``, see :func:`agent_id`) acting with its own
    RLlib module; only the agent of the current sub-step gets an observation. The reward of
    every (sub-)step goes to all agents (they cooperate on the env's return): an agent that
    does not act next collects it until its next observation. At the end of an episode every
    agent gets its last observation.

    Args:
        env_config: RLlib's env config holding the factory under :data:`FACTORY_KEY`.

    Raises:
        ConfigurationError: If a sub-step has several agents.
    """

    def __init__(self, env_config: dict[str, Any]) -> None:
        super().__init__()
        self.env = env_config[FACTORY_KEY]()
        crowded = {key: count for key, count in self.env.agent_counts_dict.items() if count != 1}
        if crowded:
            self.env.close()
            raise ConfigurationError(f"sub-steps {crowded} have several agents; maze-rllib maps one agent per sub-step")
        self.observation_spaces = {agent_id(key): space for key, space in self.env.observation_spaces_dict.items()}
        self.action_spaces = {agent_id(key): space for key, space in self.env.action_spaces_dict.items()}
        self.agents = self.possible_agents = list(self.observation_spaces)
        self._last: dict[str, dict[str, Any]] = {}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        """Resets the Maze env; the first sub-step's agent observes."""
        if hasattr(self.env, "clear_epoch_stats"):
            self.env.clear_epoch_stats()
        observation, _ = self.env.reset(seed=seed, options=options)
        self._last = {}
        return self._observe(observation), {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Steps the Maze env with the action of the acting agent."""
        observation, reward, terminated, truncated, _ = self.env.step(action_dict[agent_id(self.env.actor_id()[0])])
        rewards = {agent: float(reward) for agent in self._last}
        if terminated or truncated:
            observations = dict(self._last)
        else:
            observations = self._observe(observation)
        done = {agent: bool(terminated) for agent in self._last} | {"__all__": bool(terminated)}
        cut = {agent: bool(truncated) for agent in self._last} | {"__all__": bool(truncated)}
        return observations, rewards, done, cut, {}

    def close(self) -> None:
        """Closes the Maze env."""
        self.env.close()

    def _observe(self, observation: dict[str, Any]) -> dict[str, dict[str, Any]]:
        """The observation of the acting agent (kept as its last one)."""
        agent = agent_id(self.env.actor_id()[0])
        self._last[agent] = observation
        return {agent: observation}
