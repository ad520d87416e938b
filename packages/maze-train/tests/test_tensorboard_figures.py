"""TensorBoard images: action distributions of the monitoring events and figures declared with define_plot."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread
from maze.env.core.events import EventRecord
from maze.env.errors import ConfigurationError
from maze.env.log_stats.aggregator import LogStatsAggregator
from maze.env.log_stats.base_events import ContinuousActionEvents, DiscreteActionEvents
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_plot, define_step_stats
from maze.env.log_stats.log_stats import LogStats
from maze.train.tensorboard import LogStatsWriterTensorboard
from maze.train.tensorboard_figures import png_size
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

DRAWN: list[tuple[list, tuple]] = []


def plot_queue_lengths(value: list, groups: tuple, **kwargs: object):
    """A define_plot figure function: a bar per queue length seen in the epoch."""
    from matplotlib.figure import Figure

    DRAWN.append((list(value), groups))
    figure = Figure(figsize=(3, 2))
    axes = figure.add_subplot()
    axes.bar(range(len(value)), value)
    axes.set_title("queue lengths")
    return figure


def plot_nothing(value: list, groups: tuple, **kwargs: object) -> None:
    """A figure function with nothing to draw."""


class QueueEvents:
    @define_plot(plot_queue_lengths, input_name="lengths")
    @define_plot(plot_nothing)
    @define_epoch_stats(list, output_name="lengths")
    @define_epoch_stats(np.mean)
    @define_episode_stats(max)
    @define_step_stats(None)
    def queue_length(self, value: int) -> None:
        """The length of the queue in a step."""


class BrokenPlotEvents:
    @define_plot(lambda value, groups: 1 / 0)
    @define_epoch_stats(np.mean)
    @define_episode_stats(max)
    @define_step_stats(None)
    def level(self, value: float) -> None:
        """A level."""


def epoch_of(*steps: list[EventRecord]) -> LogStats:
    aggregator = LogStatsAggregator()
    for events in steps:
        aggregator.add_step(events)
    aggregator.end_episode()
    return aggregator.reduce()


def images(log_dir: Path) -> dict[str, np.ndarray]:
    accumulator = EventAccumulator(str(log_dir), size_guidance={"images": 0})
    accumulator.Reload()
    found = {}
    for tag in accumulator.Tags()["images"]:
        (event,) = accumulator.Images(tag)
        assert png_size(event.encoded_image_string) == (event.width, event.height)
        found[tag] = imread(io.BytesIO(event.encoded_image_string))
    return found


def action(topic: type, name: str, value: object) -> EventRecord:
    return EventRecord(topic, topic.action, {"substep_name": "substep_0", "name": name, "value": value})


def test_action_distributions_and_declared_figures_become_images(tmp_path: Path) -> None:
    DRAWN.clear()
    stats = epoch_of(
        [action(DiscreteActionEvents, "piece", 2), action(ContinuousActionEvents, "force", np.array([0.1, -0.5]))],
        [action(DiscreteActionEvents, "piece", 3), action(ContinuousActionEvents, "force", np.array([0.3, 0.5]))],
        [EventRecord(QueueEvents, QueueEvents.queue_length, {"value": 4})],
    )
    writer = LogStatsWriterTensorboard(tmp_path)
    writer.write("train", 1, stats)
    writer.close()
    found = images(tmp_path)
    assert set(found) == {
        "train_DiscreteActionEvents/action/substep_0/piece/plot",
        "train_ContinuousActionEvents/action/substep_0/force/plot",
        "train_QueueEvents/queue_length/lengths/plot",
    }
    for pixels in found.values():
        assert pixels.std() > 0.05  # drawn, not blank
    assert DRAWN == [([4], ())]  # called with the epoch statistic "lengths" and its groups


def test_figures_can_be_switched_off_and_failing_figure_functions_are_named(tmp_path: Path) -> None:
    stats = epoch_of([action(DiscreteActionEvents, "piece", 2)])
    writer = LogStatsWriterTensorboard(tmp_path / "off", figures=False)
    writer.write("train", 1, stats)
    writer.close()
    assert images(tmp_path / "off") == {}

    broken = epoch_of([EventRecord(BrokenPlotEvents, BrokenPlotEvents.level, {"value": 1.0})])
    writer = LogStatsWriterTensorboard(tmp_path / "broken")
    with pytest.raises(ConfigurationError, match=r"figure function .*<lambda> of BrokenPlotEvents.level raised"):
        writer.write("train", 1, broken)
    writer.close()


def plot_first_observation(value: list, groups: tuple, **kwargs: object):
    """An ObservationVisualizationWrapper plot function: the first observation of the epoch as bars."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(3, 2))
    figure.add_subplot().bar(range(len(value[0])), value[0])
    return figure


def test_observation_visualization_wrapper_figures_become_images(tmp_path: Path) -> None:
    from maze.env import GymMazeEnv, LogStatsWrapper, ObservationVisualizationWrapper
    from maze.env.log_stats.event_decorators import LogStatsLevel

    env = LogStatsWrapper(ObservationVisualizationWrapper(GymMazeEnv("CartPole-v1"), plot_first_observation))
    env.reset(seed=0)
    for _ in range(3):
        env.step({"action": 0})
    env.finish_episode_stats()
    env.write_epoch_stats()
    writer = LogStatsWriterTensorboard(tmp_path)
    writer.write("train", 1, env.get_stats(LogStatsLevel.EPOCH))
    writer.close()
    (pixels,) = images(tmp_path).values()
    assert pixels.std() > 0.05
    assert list(images(tmp_path)) == [
        "train_ObservationVisualizationEvents/observation_to_visualize/substep_0/observation/plot"
    ]
