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
    """The env can act as a simulation: copy another env of its kind, or continue from a given MazeState.

    Look-ahead planning and ``AgentDeployment.recommend`` use it. The contract (checked by
    :func:`maze.env.testing.check_simulated_env`):

    * :meth:`clone_from` makes this env an independent copy of another env's current state,
      mid-episode, including the state of its random generators: both continue identically
      under the same actions, and stepping (or re-seeding) one never changes the other.
    * :meth:`set_maze_state` makes this env continue from a MazeState as if an episode had
      reached it. It leaves the env's random generators as they are; a seeded simulation
      from a state is ``env.reset(seed=seed)`` followed by ``env.set_maze_state(maze_state)``.

    CoreEnvs implement both methods; their MazeEnv inherits
    :class:`maze.env.core.simulation.SimulatedMazeEnv`, which delegates to the core env and
    keeps the MazeEnv's own record of the current state in step. Wrapper stacks pass both
    calls inward (``isinstance`` sees the mixin through wrappers); wrappers keep their own
    episode state (e.g. a time limit's step count) as their last ``reset`` left it.
    """

    @abstractmethod
    def clone_from(self, env: Any) -> None:
        """Makes this env an independent copy of ``env``'s current state (an env of the same kind and config).

        Raises:
            ValueError: ``env`` is of another kind or built with another config.
        """

    @abstractmethod
    def set_maze_state(self, maze_state: Any) -> None:
        """Makes this env continue from ``maze_state`` (random generators unchanged).

        Raises:
            ValueError: ``maze_state`` does not fit this env (e.g. another inventory capacity).
        """
