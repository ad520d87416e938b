"""The event-log viewer, the statistics renderers and the figure functions (PNG content checked)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import EPISODE_STEPS, record_greedy_episodes
from matplotlib.image import imread
from maze.env.core.events import EventRecord
from maze.env.errors import ConfigurationError
from maze.env.examples.cutting_2d import Cutting2dKpiCalculator, CuttingEvents, InventoryEvents
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.step_event_log import StepEventLog
from maze.env.log_stats.base_events import BaseEnvEvents
from maze.viz import (
    EventStatsRenderer,
    NotebookEventLogsViewer,
    StepStatsRenderer,
    create_categorical_plot,
    create_histogram,
    create_relative_bar_plot,
    create_violin_distribution,
    episode_event_log,
    figure_to_png,
    load_state_trajectory,
)


def png_pixels(figure, tmp_path: Path, name: str) -> np.ndarray:
    out = tmp_path / f"{name}.png"
    out.write_bytes(figure_to_png(figure))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return imread(out)


def assert_not_blank(pixels: np.ndarray) -> None:
    assert pixels.std() > 0.05
    assert (pixels[..., :3] < 0.5).mean() > 0.001  # some dark ink (axes, text, bars)


def test_event_logs_viewer_filters_by_topic_event_and_step_and_shows_kpis(episode_file: Path) -> None:
    record = load_state_trajectory(episode_file)
    viewer = NotebookEventLogsViewer(episode_file, kpi_calculator=Cutting2dKpiCalculator())
    viewer.build()
    total = sum(len(step.step_event_log) for step in record.step_records)
    assert f"<b>{total} events</b>" in viewer.table.value
    assert set(viewer.topic_filter.options) == {"(all)", "CuttingEvents", "InventoryEvents"}

    viewer.topic_filter.value = "InventoryEvents"
    assert set(viewer.event_filter.options) >= {"(all)", "pieces_in_inventory", "piece_replenished"}
    viewer.event_filter.value = "piece_replenished"
    replenished = viewer.selected_rows()
    assert replenished and {row.event for row in replenished} == {"piece_replenished"}
    assert len(replenished) == len(list(episode_event_log(record).query_events(InventoryEvents.piece_replenished)))

    viewer.event_filter.value = "pieces_in_inventory"
    viewer.step_filter.value = 5
    (row,) = viewer.selected_rows()
    expected = next(record.step_records[5].step_event_log.query_events(InventoryEvents.pieces_in_inventory))
    assert (row.step, row.attributes) == (5, expected.attributes)
    assert "<b>1 events</b>" in viewer.table.value

    usage = len(replenished) / EPISODE_STEPS
    assert viewer.kpis == {"raw_piece_usage_per_step": pytest.approx(usage)}
    assert "raw_piece_usage_per_step" in viewer.kpi_table.value


def test_event_logs_viewer_reads_logged_kpi_events_of_an_episode_event_log() -> None:
    log = EpisodeEventLog(
        "episode",
        [StepEventLog(0, [EventRecord(BaseEnvEvents, BaseEnvEvents.kpi, {"name": "usage", "value": 0.25})])],
    )
    viewer = NotebookEventLogsViewer(log)
    assert viewer.kpis == {"usage": 0.25}
    assert [row.event for row in viewer.selected_rows()] == ["kpi"]


def test_step_stats_renderer_draws_counts_and_values_per_step(episode_file: Path, tmp_path: Path) -> None:
    renderer = StepStatsRenderer(episode_file)
    figure = renderer.render_stats(CuttingEvents.valid_cut)
    (line,) = figure.axes[0].get_lines()
    counts = [len(list(log.query_events(CuttingEvents.valid_cut))) for log in renderer.event_log.step_event_logs]
    assert list(line.get_ydata()) == counts and sum(counts) > 0
    assert figure.axes[0].get_title(loc="left") == "CuttingEvents.valid_cut per step"
    assert_not_blank(png_pixels(figure, tmp_path, "valid_cut"))

    inventory = renderer.render_stats(InventoryEvents.pieces_in_inventory, attribute="value", reducer=max)
    values = inventory.axes[0].get_lines()[0].get_ydata()
    assert len(values) == EPISODE_STEPS and inventory.axes[0].get_ylabel() == "value"
    with pytest.raises(ConfigurationError, match="never fired"):
        renderer.render_stats(CuttingEvents.invalid_cut)
    with pytest.raises(ConfigurationError, match="no attribute 'size'"):
        renderer.render_stats(InventoryEvents.pieces_in_inventory, attribute="size", reducer=max)


def test_event_stats_renderer_draws_one_bar_per_episode(tmp_path: Path) -> None:
    files = record_greedy_episodes(tmp_path / "episodes", episodes=2, steps=6)
    renderer = EventStatsRenderer(files)
    stats = renderer.episode_stats(
        InventoryEvents.pieces_in_inventory, attribute="value", step_reducer=max, episode_reducer=max
    )
    assert list(stats) == [None] and len(stats[None]) == 2
    figure = renderer.render_episode_stats(CuttingEvents.valid_cut)
    bars = figure.axes[0].patches
    assert [bar.get_height() for bar in bars] == [6, 6]  # the greedy policy cuts validly every step
    assert_not_blank(png_pixels(figure, tmp_path, "episodes"))
    with pytest.raises(ConfigurationError, match="at least one episode"):
        EventStatsRenderer([])


def test_figure_functions_draw_titled_non_blank_pngs(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    discrete = create_categorical_plot([0, 1, 1, 2, 2, 2], groups=("substep_0", "action"))
    assert discrete.axes[0].get_title() == "action distribution: substep_0/action"
    assert [bar.get_height() for bar in discrete.axes[0].patches] == [1, 2, 3]
    many = create_categorical_plot(list(range(100)) + [7], groups=("substep_0", "piece_idx"))
    (steps,) = many.axes[0].patches  # one filled step line instead of 100 bars
    assert steps.get_path().vertices[:, 1].max() == 2  # value 7 occurs twice
    binary = create_relative_bar_plot([np.array([1, 0]), np.array([1, 1])], groups=("substep_0", "buttons"))
    assert [bar.get_height() for bar in binary.axes[0].patches] == [1.0, 0.5]
    violin = create_violin_distribution(list(rng.normal(size=(50, 2))), groups=("substep_0", "force"))
    histogram = create_histogram(list(rng.normal(size=100)))
    assert histogram.axes[0].get_title() == "histogram"
    for name, figure in {
        "discrete": discrete,
        "many": many,
        "binary": binary,
        "violin": violin,
        "histogram": histogram,
    }.items():
        assert_not_blank(png_pixels(figure, tmp_path, name))
    with pytest.raises(ValueError, match="no values"):
        create_categorical_plot([])
