"""The renderer interface shared by online rendering and trajectory viewers."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Optional

from maze.env.core._meta import StackTransparentMeta

__all__ = ["Renderer"]


class Renderer(metaclass=StackTransparentMeta):
    """Draws one step of an env from its MazeState, MazeAction and step events.

    Renderers work only on recorded data, so the same code serves online rendering and
    replaying recorded trajectories. Implementations import matplotlib lazily.
    """

    @abstractmethod
    def render(self, maze_state: Any, maze_action: Optional[Any], events: Any, **kwargs: Any) -> None:
        """Draws the state (and the action taken in it, when given)."""

    def get_renderer_args(self) -> list:
        """Extra arguments the renderer exposes as widgets in viewers."""
        return []
