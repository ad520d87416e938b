"""A2CRunner: A2C on any backend (``algorithm=a2c``)."""

from __future__ import annotations

from maze.train.runners.actor_critic_runner import ActorCriticRunner

__all__ = ["A2CRunner"]


class A2CRunner(ActorCriticRunner):
    """The actor-critic runner with A2C as its trainer (see :class:`ActorCriticRunner` for the arguments)."""

    default_trainer = "maze.train.trainers.a2c.A2C"
