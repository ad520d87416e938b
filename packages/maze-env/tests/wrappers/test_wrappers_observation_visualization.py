"""ObservationVisualizationWrapper: events with the observations and the plot function, drawn per epoch."""

from __future__ import annotations

import numpy as np
import pytest
from maze.env import ConfigurationError, GymMazeEnv, ObservationVisualizationWrapper, WrapperFactory
from maze.env.log_stats.event_decorators import LogStatsLevel, plot_definitions
from maze.env.log_stats.log_stats import LogStatsKey
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.observation_visualization import ObservationVisualizationEvents

CALLS: list[tuple[int, tuple]] = []


def count_observations(value: list, groups: tuple, **kwargs: object) -> str:
    """A plot function that records what it got and returns a stand-in for a figure."""
    CALLS.append((len(value), groups))
    assert all(isinstance(observation, np.ndarray) for observation in value)
    return f"figure of {len(value)}"


def test_observations_of_an_epoch_reach_the_configured_plot_function() -> None:
    CALLS.clear()
    config = {"ObservationVisualizationWrapper": {"plot_function": f"{__name__}.count_observations"}}
    env = LogStatsWrapper(WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), config))
    env.reset(seed=0)
    steps = 0
    for _ in range(5):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        steps += 1
        if terminated or truncated:
            break
    env.reset(seed=1)  # ends the episode
    env.write_epoch_stats()
    stats = env.get_stats(LogStatsLevel.EPOCH)
    key = LogStatsKey("ObservationVisualizationEvents", "observation_to_visualize", None, ("substep_0", "observation"))
    value = stats[key]
    assert len(value) == steps and {entry["plot_function"] for entry in value} == {f"{__name__}.count_observations"}
    (plot,) = plot_definitions(ObservationVisualizationEvents.observation_to_visualize)
    assert plot.create_figure(value, groups=key.groups) == f"figure of {steps}"
    assert CALLS == [(steps, ("substep_0", "observation"))]


def test_plot_functions_that_do_not_resolve_are_named() -> None:
    with pytest.raises(ConfigurationError, match="plot_function 'no_such_module.plot'"):
        ObservationVisualizationWrapper(GymMazeEnv("CartPole-v1"), plot_function="no_such_module.plot")
    with pytest.raises(ConfigurationError, match="is not callable"):
        ObservationVisualizationWrapper(GymMazeEnv("CartPole-v1"), plot_function=f"{__name__}.CALLS")
    wrapper = ObservationVisualizationWrapper(GymMazeEnv("CartPole-v1"), plot_function=count_observations)
    assert wrapper.plot_function == f"{__name__}.count_observations"
