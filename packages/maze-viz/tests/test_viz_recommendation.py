"""The recommendation view: from a Recommendation-like object or its dict, bars with spread, the policy's choice marked."""

from __future__ import annotations

import copy
import math
from typing import Any

import matplotlib
import pytest
from maze.viz import NotebookRecommendationViewer, plot_recommendation, recommendation_data
from maze.viz.recommendation import PROBABILITY, RETURN, candidate_label, metric_names, metric_values

matplotlib.use("Agg")


def statistic(mean: Any, std: Any, n: int = 4) -> dict[str, Any]:
    return {"mean": mean, "n": n, "std": std}


def candidate(rank: int, piece: int, probability: float, ret: float, usage: float) -> dict[str, Any]:
    return {
        "action": {"piece_idx": piece},
        "events": {"CuttingEvents.invalid_cut.count": statistic(float(rank), 0.5)},
        "forecast_return": statistic(ret, 0.5 + rank),
        "is_policy_choice": rank == 0,
        "kpis": {"raw_piece_usage_per_step": statistic(usage, 0.01)},
        "maze_action": None,
        "probability": probability,
        "rank": rank,
        "rollouts_finished": 4,
    }


RECOMMENDATION = {
    "actor_id": [0, 0],
    "candidates": [candidate(0, 2, 0.7, -3.0, 0.2), candidate(1, 0, 0.2, -5.5, 0.4), candidate(2, 1, 0.1, -4.0, 0.3)],
    "elapsed_s": 0.05,
    "horizon": 20,
    "n_rollouts": 4,
    "rollouts_finished": 12,
    "rollouts_requested": 12,
    "seed": 0,
    "timed_out": False,
}
"""The layout of ``Recommendation.to_dict()`` (maze-deploy), as the agent service answers it."""


class FakeRecommendation:
    """Stands for maze-deploy's Recommendation (maze-viz does not import maze-deploy): it has ``to_dict()``."""

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(RECOMMENDATION)


def test_both_forms_give_the_same_data_and_bad_data_one_clear_error() -> None:
    assert recommendation_data(FakeRecommendation()) == recommendation_data(RECOMMENDATION)
    with pytest.raises(ValueError, match="list of candidates"):
        recommendation_data({"candidates": None})
    broken = copy.deepcopy(RECOMMENDATION)
    del broken["candidates"][1]["forecast_return"]
    with pytest.raises(ValueError, match="candidate 1 of the recommendation has no forecast_return"):
        recommendation_data(broken)


def test_metrics_are_probability_return_kpis_by_default_and_events_on_request() -> None:
    default, events = metric_names(RECOMMENDATION)
    assert default == [PROBABILITY, RETURN, "kpi:raw_piece_usage_per_step"]
    assert events == ["event:CuttingEvents.invalid_cut.count"]
    assert metric_values(RECOMMENDATION, RETURN) == [(-3.0, 0.5), (-5.5, 1.5), (-4.0, 2.5)]
    assert metric_values(RECOMMENDATION, PROBABILITY) == [(0.7, 0.0), (0.2, 0.0), (0.1, 0.0)]
    with pytest.raises(KeyError, match="unknown metric"):
        metric_values(RECOMMENDATION, "usage")


def test_the_figure_has_a_panel_per_metric_and_a_bar_with_spread_per_candidate() -> None:
    figure = plot_recommendation(FakeRecommendation())
    panels = figure.axes
    assert [axes.get_title() for axes in panels] == [PROBABILITY, RETURN, "raw_piece_usage_per_step"]
    returns = panels[1]
    bars = returns.patches
    assert [bar.get_width() for bar in bars] == [-3.0, -5.5, -4.0]  # rank order, top to bottom
    assert bars[0].get_facecolor() != bars[1].get_facecolor() == bars[2].get_facecolor()  # the policy's choice
    assert any(getattr(c, "has_xerr", False) for c in returns.containers), "the spread is drawn as error bars"
    assert not any(getattr(c, "has_xerr", False) for c in panels[0].containers)  # a probability has no spread
    labels = [label.get_text() for label in panels[0].get_yticklabels()]
    assert labels == ['#0 {"piece_idx":2} ★', '#1 {"piece_idx":0}', '#2 {"piece_idx":1}']
    assert "12/12 rollouts" in figure._suptitle.get_text()


def test_missing_forecasts_are_drawn_as_n_a_not_as_failures() -> None:
    timed_out = copy.deepcopy(RECOMMENDATION)
    timed_out["timed_out"], timed_out["rollouts_finished"] = True, 4
    timed_out["candidates"][2]["forecast_return"] = statistic(None, None, 0)
    figure = plot_recommendation(timed_out, [RETURN, "event:CuttingEvents.invalid_cut.count"])
    assert [bar.get_width() for bar in figure.axes[0].patches][2] == 0.0
    assert any(text.get_text().strip() == "n/a" for text in figure.axes[0].texts)
    assert "timed out" in figure._suptitle.get_text()


def test_labels_prefer_the_maze_action_and_are_cut_to_width() -> None:
    long = {"rank": 1, "action": {"a": 1}, "maze_action": {"piece_id": 3, "rotate": True, "cut_order": [0] * 30}}
    label = candidate_label(long, width=20)
    assert label.startswith("#1 {") and label.endswith("…") and len(label) == len("#1 ") + 20


def test_the_notebook_viewer_shows_the_table_and_redraws_for_the_chosen_metrics(monkeypatch) -> None:
    pytest.importorskip("ipywidgets")
    shown: list[Any] = []
    monkeypatch.setattr("IPython.display.display", lambda figure: shown.append(figure))
    viewer = NotebookRecommendationViewer(FakeRecommendation())
    assert viewer.metrics == [PROBABILITY, RETURN, "kpi:raw_piece_usage_per_step"]
    widget = viewer.build()
    assert widget.children == (viewer.summary, viewer.table, viewer.metric_selector, viewer.picture)
    assert "horizon 20" in viewer.summary.value
    table = viewer.table.value
    assert "raw_piece_usage_per_step" in table and "-3 ± 0.5" in table and "0.700" in table and "0 ★" in table
    assert len(shown) == 1 and [axes.get_title() for axes in shown[0].axes][1] == RETURN
    viewer.metric_selector.value = ("event:CuttingEvents.invalid_cut.count",)
    assert len(shown) == 2 and [axes.get_title() for axes in shown[1].axes] == ["CuttingEvents.invalid_cut.count"]
    assert math.isclose(shown[1].axes[0].patches[2].get_width(), 2.0)
