"""The renderer interface shared by online rendering and trajectory viewers."""

from __future__ import annotations

from abc import abstractmethod
from types import ModuleType
from typing import Any, Optional

from maze.env.core._meta import StackTransparentMeta
from maze.env.utils.install_hints import pip_install_command

__all__ = ["Renderer", "import_pyplot"]


def import_pyplot() -> ModuleType:
    """Imports ``matplotlib.pyplot`` for a renderer, naming the extra to install when it is missing."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(
            "rendering needs matplotlib, which maze-env does not install by default; "
            f"install it with: {pip_install_command('maze-env[render]')} (or pip install matplotlib)"
        ) from error
    return plt


class Renderer(metaclass=StackTransparentMeta):
    """Draws one step of an env from its MazeState, MazeAction and step events.

    Renderers work only on recorded data, so the same code serves online rendering and
    replaying recorded trajectories. Implementations import matplotlib lazily.

    Attributes:
        replayable: False for renderers that can only draw the live env (they ignore the
            recorded state); trajectory recording then stores no renderer.
    """

    replayable: bool = True

    @abstractmethod
    def render(self, maze_state: Any, maze_action: Optional[Any], events: Any, **kwargs: Any) -> None:
        """Draws the state (and the action taken in it, when given)."""

    def get_renderer_args(self) -> list:
        """Extra arguments the renderer exposes as widgets in viewers."""
        return []
