"""Optional env capabilities that wrappers, recorders and viewers look for with ``isinstance``."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Iterable, Optional

from maze.env.core._meta import StackTransparentMeta
from maze.env.core.events import EventRecord
from maze.env.core.rendering import Renderer

__all__ = [
    "RenderEnvMixin",
    "RecordableEnvMixin",
    "SerializableEnvMixin",
    "TimeEnvMixin",
    "EventEnvMixin",
    "SimulatedEnvMixin",
]


class RenderEnvMixin(metaclass=StackTransparentMeta):
    """The env can draw itself with a :class:`Renderer`."""

    @abstractmethod
    def get_renderer(self) -> Renderer:
        """The renderer that draws this env's states."""


class RecordableEnvMixin(RenderEnvMixin):
    """The env exposes what trajectory recording needs."""

    @abstractmethod
    def get_maze_state(self) -> Any:
        """The current MazeState."""

    @abstractmethod
    def get_maze_action(self) -> Any:
        """The last MazeAction executed (None before the first step)."""

    @abstractmethod
    def get_episode_id(self) -> str:
        """Unique id of the current episode."""


class SerializableEnvMixin(metaclass=StackTransparentMeta):
    """The env names components worth saving with recorded trajectories."""

    @abstractmethod
    def get_serializable_components(self) -> dict[str, Any]:
        """Components (by name) to store with a recorded episode."""


class TimeEnvMixin(metaclass=StackTransparentMeta):
    """The env has a notion of time."""

    @abstractmethod
    def get_env_time(self) -> int:
        """Number of env steps taken in the current episode."""


class EventEnvMixin(metaclass=StackTransparentMeta):
    """The env fires events; the last step's events can be queried."""

    @abstractmethod
    def get_step_events(self) -> Iterable[EventRecord]:
        """Events fired during the last step."""

    def get_kpi_calculator(self) -> Optional[Any]:
        """The KPI calculator of the env, if it has one."""
        return None


class SimulatedEnvMixin(metaclass=StackTransparentMeta):
    """The env can copy the state of another env of its kind (for look-ahead planning)."""

    @abstractmethod
    def clone_from(self, env: Any) -> None:
        """Makes this env an independent copy of ``env``'s current state."""
