"""ObservationVisualizationWrapper: observations drawn by a custom plot function into TensorBoard's IMAGES tab."""

from __future__ import annotations

from typing import Any, Callable, Union

from maze.env.core.maze_env import MazeEnv
from maze.env.errors import ConfigurationError
from maze.env.log_stats.event_decorators import (
    define_episode_stats,
    define_epoch_stats,
    define_plot,
    define_stats_grouping,
    define_step_stats,
    histogram,
)
from maze.env.utils.factory import resolve_target
from maze.env.wrappers.wrapper import Wrapper

__all__ = ["ObservationVisualizationWrapper", "ObservationVisualizationEvents", "draw_observations"]


def draw_observations(value: list[dict[str, Any]], groups: tuple = (), **kwargs: Any) -> Any:
    """The ``define_plot`` function of :class:`ObservationVisualizationEvents`: calls the configured plot function.

    Args:
        value: The epoch's events as ``{"plot_function": dotted path, "value": observation}``.
        groups: ``(substep name, observation name)``.
        **kwargs: Passed on.

    Returns:
        What the plot function returns for the epoch's observations: a matplotlib figure, or None.
    """
    if not value:
        return None
    plot_function = resolve_target(value[0]["plot_function"])
    return plot_function([entry["value"] for entry in value], groups=groups, **kwargs)


class ObservationVisualizationEvents:
    """Observations to visualize, per sub-step and observation key."""

    @define_plot(draw_observations)
    @define_epoch_stats(histogram)
    @define_episode_stats(histogram)
    @define_step_stats(None)
    @define_stats_grouping("substep_name", "name")
    def observation_to_visualize(self, substep_name: str, name: str, plot_function: str, value: Any) -> None:
        """An observation the wrapper returned, with the dotted path of the function that draws the epoch's ones."""


class ObservationVisualizationWrapper(Wrapper[Any]):
    """Hands the observations of every step to a custom plot function, drawn once per epoch in TensorBoard.

    The wrapper fires :class:`ObservationVisualizationEvents` with every observation it
    returns (per observation key; observations of ``reset()`` are not logged). At the end
    of an epoch the TensorBoard writer of a training run calls
    ``plot_function(observations, groups=(substep_name, observation_name))`` with all the
    epoch's observations of one key; the figure it returns (None: nothing) goes into the
    IMAGES tab as ``<prefix>_ObservationVisualizationEvents/observation_to_visualize/<substep>/<key>/plot``.

    The observations of an epoch are kept in memory until then: use the wrapper for
    debugging, not for long runs with large observations.

    Args:
        env: A MazeEnv or a wrapper stack around one.
        plot_function: The plot function, or its dotted path (it must be importable in the
            process that writes TensorBoard, e.g. ``my_project.plots.plot_1c_image_stack``).
    """

    def __init__(self, env: Any, plot_function: Union[str, Callable[..., Any]]) -> None:
        super().__init__(env)
        if not isinstance(env, MazeEnv):
            raise ConfigurationError(
                f"ObservationVisualizationWrapper needs a MazeEnv inside its wrapper stack, got {type(env).__name__}; "
                "wrap a gymnasium env with GymMazeEnv first"
            )
        self.plot_function = _dotted_path(plot_function)
        self._fire = env.unwrapped.core_env.context.event_service.event_firer(
            ObservationVisualizationEvents, ObservationVisualizationEvents.observation_to_visualize
        )

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Steps the env and fires one event per observation key of the returned observation."""
        result = self.env.step(action)
        observation = result[0]
        substep_name = f"substep_{self.env.actor_id()[0]}"
        items = observation.items() if isinstance(observation, dict) else (("observation", observation),)
        for name, value in items:
            self._fire(substep_name=substep_name, name=name, plot_function=self.plot_function, value=value)
        return result


def _dotted_path(plot_function: Union[str, Callable[..., Any]]) -> str:
    """The dotted path of the plot function, checked to resolve to a callable."""
    if callable(plot_function):
        path = f"{plot_function.__module__}.{plot_function.__qualname__}"
    elif isinstance(plot_function, str):
        path = plot_function
    else:
        raise ConfigurationError(
            f"ObservationVisualizationWrapper: plot_function must be a dotted path or a function, got {plot_function!r}"
        )
    try:
        resolved = resolve_target(path)
    except ConfigurationError as error:
        raise ConfigurationError(f"ObservationVisualizationWrapper: plot_function {path!r}: {error}") from None
    if not callable(resolved):
        raise ConfigurationError(f"ObservationVisualizationWrapper: plot_function {path!r} is not callable")
    return path
