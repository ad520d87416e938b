"""The loop of one rollout episode, shared by the runners that roll out in this process and the parallel workers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from maze.env.agent.policy import Policy
from maze.env.log_stats.aggregator import EpisodeStatsBatch

__all__ = ["StepFunction", "move_episode_stats", "replay_overrides", "run_episode"]

StepFunction = Callable[[Any], tuple[Any, Any, bool, bool, dict]]
"""``env.step`` or a function standing in for it (e.g. one that also renders)."""


def run_episode(
    env: Any,
    policy: Policy,
    env_seed: int,
    agent_seed: int,
    deterministic: bool,
    step: Optional[StepFunction] = None,
) -> int:
    """Seeds and resets the env and the policy, then acts until the episode terminates or is truncated.

    Args:
        env: The (wrapped) structured env.
        policy: The agent; it gets the MazeState and the env when it says it needs them.
        env_seed: Seed of the env's reset.
        agent_seed: Seed of the policy.
        deterministic: Passed to ``compute_action``.
        step: Called instead of ``env.step`` (None: ``env.step``).

    Returns:
        The env steps of the episode: the env time that passed (sub-steps of a structured env
        share one env step), or the number of ``step`` calls for envs without an env time.
    """
    policy.seed(agent_seed)
    policy.reset()
    observation, _ = env.reset(seed=env_seed)
    step = env.step if step is None else step
    compute_action, actor_id = policy.compute_action, env.actor_id
    get_state = env.get_maze_state if policy.needs_state() else _none
    acting_env = env if policy.needs_env() else None
    env_time = getattr(env, "get_env_time", None)
    start = env_time() if env_time else 0
    steps = 0
    while True:
        action = compute_action(
            observation, maze_state=get_state(), env=acting_env, actor_id=actor_id(), deterministic=deterministic
        )
        observation, _, terminated, truncated, _ = step(action)
        steps += 1
        if terminated or truncated:
            return env_time() - start if env_time else steps


def replay_overrides(env_seed: int, agent_seed: int) -> str:
    """The ``maze-run`` overrides that replay one episode in the main process (e.g. under a debugger)."""
    return (
        f"runner=sequential runner.n_episodes=1 seeding.explicit_env_seeds=[{env_seed}] "
        f"seeding.explicit_agent_seeds=[{agent_seed}]"
    )


def move_episode_stats(env: Any, collected: EpisodeStatsBatch) -> None:
    """Moves the finished episodes' statistics out of the env's statistics wrapper into ``collected``."""
    batch = env.take_episode_stats()
    collected.events.update(batch.events)
    collected.episodes.extend(batch.episodes)


def _none() -> None:
    return None
