"""PPORunner: PPO on any backend (``algorithm=ppo``)."""

from __future__ import annotations

from maze.train.runners.actor_critic_runner import ActorCriticRunner

__all__ = ["PPORunner"]


class PPORunner(ActorCriticRunner):
    """The actor-critic runner with PPO as its trainer (see :class:`ActorCriticRunner` for the arguments)."""

    default_trainer = "maze.train.trainers.ppo.PPO"
