"""Online rendering of rollouts: every step drawn through the env's renderer while the episode runs."""

from __future__ import annotations

import logging
from typing import Any, Optional

import numpy as np
from gymnasium.error import DependencyNotInstalled
from maze.env.core.mixins import RecordableEnvMixin
from maze.env.core.rendering import import_pyplot
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.core_env import GymRenderer
from maze.env.log_events.step_event_log import StepEventLog
from maze.rollout.episode_loop import StepFunction

logger = logging.getLogger(__name__)

__all__ = ["FRAME_FIGURE", "OnlineRenderer"]

FRAME_FIGURE = "maze rollout"
"""Title of the matplotlib figure that shows image frames (e.g. of ``render_mode="rgb_array"`` gym envs)."""

_FRAME_PAUSE_S = 0.001
"""How long an interactive matplotlib window gets to show each frame."""


class OnlineRenderer:
    """Draws each step of an env with its renderer (``env.get_renderer()``).

    Maze renderers draw the MazeState the action was taken in, the MazeAction and the
    step's events (e.g. with matplotlib, pausing briefly on interactive backends). A
    renderer that returns an image (gymnasium envs made with ``render_mode="rgb_array"``)
    has it shown in the matplotlib figure :data:`FRAME_FIGURE`; on a non-interactive
    backend (``MPLBACKEND=Agg``, headless) the figure is updated but not displayed.
    gymnasium envs made with ``render_mode="human"`` draw their own window.

    Args:
        env: The (wrapped) env to draw; it must provide MazeStates and MazeActions.

    Raises:
        ConfigurationError: The env has no renderer or no MazeStates.
    """

    def __init__(self, env: Any) -> None:
        if not isinstance(env, RecordableEnvMixin):
            raise ConfigurationError(
                f"runner.render=true needs an env with MazeStates and a renderer (a MazeEnv); {type(env).__name__} "
                "is none. Set runner.render=false"
            )
        try:
            self.renderer = env.get_renderer()
        except NotImplementedError:
            raise ConfigurationError(
                f"runner.render=true, but the env {type(env.unwrapped).__name__} has no renderer; set runner.render=false"
            ) from None
        self.env = env
        self.drawing = True
        self._image: Optional[Any] = None
        if isinstance(self.renderer, GymRenderer) and env.render_mode is None:
            logger.info(
                "runner.render=true: the gymnasium env was made without a render mode, so nothing is drawn; set "
                "env.render_mode=rgb_array (drawn with matplotlib) or env.render_mode=human"
            )

    def step_function(self) -> StepFunction:
        """A stand-in for ``env.step`` that steps the env and then draws the step."""
        env, step = self.env, self.env.step
        env_time = getattr(env, "get_env_time", None)

        def step_and_draw(action: Any) -> tuple[Any, Any, bool, bool, dict]:
            maze_state, time = env.get_maze_state(), env_time() if env_time else 0
            result = step(action)
            if self.drawing:
                events = StepEventLog(time, list(getattr(env, "get_step_events", tuple)()))
                self.draw(maze_state, env.get_maze_action(), events)
            return result

        return step_and_draw

    def draw(self, maze_state: Any, maze_action: Any, events: StepEventLog) -> None:
        """Draws one step; an image returned by the renderer goes to the :data:`FRAME_FIGURE` figure.

        A renderer that lacks an optional drawing library (e.g. pygame for gymnasium's
        classic-control envs) turns drawing off for the rest of the rollout, with one line
        naming what to install.
        """
        try:
            frame = self.renderer.render(maze_state, maze_action, events)
        except DependencyNotInstalled as error:
            self.drawing = False
            logger.info(f"runner.render=true: cannot draw this env ({error}); the rollout goes on without drawing")
            return
        if isinstance(frame, np.ndarray) and frame.ndim == 3:
            self._show(frame)

    def _show(self, frame: np.ndarray) -> None:
        """Shows an ``(height, width, channels)`` image in the frame figure."""
        plt = import_pyplot()
        if self._image is None or not plt.fignum_exists(self._image.figure.number):
            figure = plt.figure(FRAME_FIGURE)
            figure.clf()
            axes = figure.add_subplot()
            axes.set_axis_off()
            self._image = axes.imshow(frame)
        else:
            self._image.set_data(frame)
        if self._image.figure.canvas.required_interactive_framework:
            plt.pause(_FRAME_PAUSE_S)
