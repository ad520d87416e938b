"""CoreEnv: the simulation, working on MazeStates and MazeActions."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Iterable, Optional, Union

import numpy as np
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.core.context import EnvironmentContext
from maze.env.core.events import EventRecord
from maze.env.core.mixins import EventEnvMixin, RenderEnvMixin, SerializableEnvMixin, TimeEnvMixin
from maze.env.core.rendering import Renderer
from maze.env.core.structured_env import StructuredEnv

__all__ = ["CoreEnv"]

_FLAT_ACTOR = ActorID(0, 0)


class CoreEnv(StructuredEnv, EventEnvMixin, SerializableEnvMixin, RenderEnvMixin, TimeEnvMixin):
    """Base of every simulation.

    A CoreEnv knows nothing about observation or action spaces: it steps with
    MazeActions and returns MazeStates (arbitrary Python objects), fires events through
    ``self.context`` and may compute its reward with a
    :class:`~maze.env.core.reward.RewardAggregatorInterface`. Wrap it into a
    :class:`~maze.env.core.maze_env.MazeEnv` to train agents on it.

    Subclasses implement :meth:`step`, :meth:`reset` and :meth:`get_maze_state`; flat
    envs keep the default single actor ``ActorID(0, 0)``. Whoever drives a CoreEnv calls
    ``self.context.pre_step()`` before each step (MazeEnv does) so that every step starts
    with an empty event log.

    Env time (:meth:`get_env_time`) counts completed env steps. For a flat env MazeEnv
    advances it on every step; a structured env (several sub-steps or agents) calls
    ``self.context.increment_env_step()`` itself once all actors of an env step have acted.
    """

    def __init__(self) -> None:
        self.context = EnvironmentContext()

    @abstractmethod
    def step(self, maze_action: Any) -> tuple[Any, Union[float, np.ndarray], bool, bool, dict]:
        """Executes a MazeAction.

        Returns:
            ``(maze_state, reward, terminated, truncated, info)``.
        """

    @abstractmethod
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Starts a new episode, re-seeding the simulation when ``seed`` is given.

        Returns:
            ``(maze_state, info)``.
        """

    @abstractmethod
    def get_maze_state(self) -> Any:
        """The current MazeState."""

    def actor_id(self) -> ActorID:
        """The actor that acts next; flat envs always return ``ActorID(0, 0)``."""
        return _FLAT_ACTOR

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        """Agents per sub-step; flat envs have one agent in sub-step 0."""
        return {0: 1}

    def get_step_events(self) -> Iterable[EventRecord]:
        """Events fired during the last step."""
        return self.context.event_service.step_events

    def get_serializable_components(self) -> dict[str, Any]:
        """Nothing to store by default."""
        return {}

    def get_renderer(self) -> Renderer:
        """Envs that can be drawn override this."""
        raise NotImplementedError(f"{type(self).__name__} has no renderer; override get_renderer() to add one")

    def get_env_time(self) -> int:
        """Steps taken in the current episode (as counted by ``context.increment_env_step``)."""
        return self.context.step_id
