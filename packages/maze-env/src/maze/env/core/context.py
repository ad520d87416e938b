"""Per-env context shared by the CoreEnv and the wrappers around it."""

from __future__ import annotations

import uuid

from maze.env.core.events import EventService

__all__ = ["EnvironmentContext"]


class EnvironmentContext:
    """Holds the event service and the episode/step bookkeeping of one env.

    Attributes:
        event_service: Records the events of the current step.
        episode_id: Unique id of the current episode (a UUID4 string).
        step_id: Number of env steps taken in the current episode.
    """

    def __init__(self) -> None:
        self.event_service = EventService()
        self.episode_id = str(uuid.uuid4())
        self.step_id = 0

    def reset_episode(self) -> None:
        """Starts the bookkeeping of a new episode."""
        self.episode_id = str(uuid.uuid4())
        self.step_id = 0
        self.event_service.clear_step_events()

    def pre_step(self) -> None:
        """Prepares a step: the events of the previous step are dropped."""
        if self.event_service.step_events.methods:  # (no len() call: this runs every step)
            self.event_service.clear_step_events()

    def increment_env_step(self) -> None:
        """Counts one env step."""
        self.step_id += 1
