"""A matplotlib window that replays a recorded episode, browsed with the keyboard."""

from __future__ import annotations

from typing import Any, Optional

from maze.env.core.rendering import Renderer, import_pyplot
from maze.viz.trajectories import TrajectoryInput, load_state_trajectory, render_step, replay_renderer

__all__ = ["KeyboardControlledTrajectoryViewer"]


class KeyboardControlledTrajectoryViewer:
    """Draws the steps of a recorded episode with its renderer; keys move between the steps.

    Keys: right / up: next step; left / down: previous step; page up / page down: 10
    steps forward / back; home / end: first / last step. The figure's title tells the
    step shown (``step i of n``).

    Example (opens a window on an interactive matplotlib backend)::

        KeyboardControlledTrajectoryViewer("trajectory_data/<episode id>.traj.npz").show()

    Args:
        record: The episode (a StateTrajectoryRecord) or the path of its trajectory file.
        renderer: Draws the steps (default: the renderer recorded with the episode).
        renderer_args: Extra keyword arguments for every ``render`` call (values of the
            renderer's ``RendererArg`` s).

    Raises:
        TrajectoryLoadError: The file cannot be loaded or the episode is empty.
        ConfigurationError: There is no renderer that can replay the episode.
    """

    STEPS = {"right": 1, "up": 1, "left": -1, "down": -1, "pageup": 10, "pagedown": -10}
    """How far each key moves (``home`` and ``end`` jump to the first and the last step)."""

    def __init__(
        self, record: TrajectoryInput, renderer: Optional[Renderer] = None, renderer_args: Optional[dict] = None
    ) -> None:
        self.record = load_state_trajectory(record)
        self.renderer = replay_renderer(self.record, renderer)
        self.renderer_args = dict(renderer_args or {})
        for arg in self.renderer.get_renderer_args():
            self.renderer_args[arg.name] = arg.validate(self.renderer_args.get(arg.name, arg.default))
        self.index = 0
        self.figure: Any = None
        self._connected: set[int] = set()

    def render(self, index: Optional[int] = None) -> Any:
        """Draws step ``index`` (default: the current one) and returns the figure it was drawn into."""
        plt = import_pyplot()
        if index is not None:
            self.index = min(max(index, 0), len(self.record) - 1)
        render_step(self.record, self.renderer, self.index, **self.renderer_args)
        figure = plt.gcf()
        figure.suptitle(
            f"step {self.index} of {len(self.record) - 1} (keys: left/right, home/end)", fontsize="small", y=1.0
        )
        if id(figure) not in self._connected:
            figure.canvas.mpl_connect("key_press_event", self.on_key)
            self._connected.add(id(figure))
        figure.canvas.draw_idle()
        self.figure = figure
        return figure

    def on_key(self, event: Any) -> None:
        """Moves to another step for the keys in :attr:`STEPS`, ``home`` and ``end``; other keys are ignored."""
        if event.key == "home":
            target = 0
        elif event.key == "end":
            target = len(self.record) - 1
        elif event.key in self.STEPS:
            target = self.index + self.STEPS[event.key]
        else:
            return
        self.render(target)

    def show(self) -> None:
        """Draws the first step and shows the window (blocks until it is closed on interactive backends)."""
        self.render(0)
        import_pyplot().show()
