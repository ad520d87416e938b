"""A recommendation of a deployed agent, side by side: candidates, their probability and forecasts with spread.

``AgentDeployment.recommend`` (maze-deploy) returns a ``Recommendation``: the policy's top-k
candidate actions, each with a forecast over a horizon (return, KPIs, event statistics, each a
mean, a standard deviation and a number of rollouts). The agent service answers the same as
JSON (``Recommendation.to_dict()``). Both are viewed here without importing maze-deploy:

* :func:`recommendation_data` - either form as plain data (checked);
* :func:`plot_recommendation` - one panel per metric (probability, forecast return, each KPI,
  chosen events), one horizontal bar per candidate with the spread (± std) as an error bar, the
  policy's own choice drawn in its own colour and marked ``★``;
* :class:`NotebookRecommendationViewer` - in a notebook (the ``notebook`` extra): a summary, a
  table of the candidates and the figure, with a selector of the metrics drawn.

In a notebook::

    from maze.viz import NotebookRecommendationViewer
    NotebookRecommendationViewer(agent.recommend(maze_state, k=3)).build()
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Optional

from maze.viz._extras import import_extra
from maze.viz.notebook import html_table

__all__ = [
    "PROBABILITY",
    "RETURN",
    "NotebookRecommendationViewer",
    "candidate_label",
    "metric_names",
    "metric_values",
    "plot_recommendation",
    "recommendation_data",
]

PROBABILITY = "probability"
"""The metric name of the policy's probability of a candidate."""

RETURN = "forecast_return"
"""The metric name of the forecast return."""

_POLICY_COLOUR, _OTHER_COLOUR = "tab:orange", "tab:blue"


def recommendation_data(recommendation: Any) -> dict[str, Any]:
    """The recommendation as plain data: a ``Recommendation`` (anything with ``to_dict()``) or its dict.

    Raises:
        ValueError: The data is no recommendation (no candidates, or a candidate without its fields).
    """
    data = recommendation.to_dict() if callable(getattr(recommendation, "to_dict", None)) else recommendation
    if not isinstance(data, Mapping) or not isinstance(data.get("candidates"), Sequence):
        raise ValueError("a recommendation is a Recommendation or its to_dict(): a mapping with a list of candidates")
    for index, candidate in enumerate(data["candidates"]):
        missing = [key for key in ("rank", "action", "probability", RETURN) if key not in candidate]
        if missing:
            raise ValueError(f"candidate {index} of the recommendation has no {', '.join(missing)}")
    return dict(data)


def candidate_label(candidate: Mapping[str, Any], width: int = 40) -> str:
    """``"#rank action"`` with the action in compact JSON (cut to ``width``), ``★`` for the policy's choice."""
    action = candidate.get("maze_action") or candidate["action"]
    text = json.dumps(action, separators=(",", ":"), sort_keys=True, default=str)
    if len(text) > width:
        text = text[: width - 1] + "…"
    mark = " ★" if candidate.get("is_policy_choice") else ""
    return f"#{candidate['rank']} {text}{mark}"


def _statistic(value: Any) -> tuple[float, float]:
    """(mean, std) of a statistic dict or a plain number; missing values are nan."""
    if isinstance(value, Mapping):
        mean, std = value.get("mean"), value.get("std")
    else:
        mean, std = value, 0.0
    return (math.nan if mean is None else float(mean)), (0.0 if std is None else float(std))


def metric_names(data: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(the default metrics: probability, return and every KPI; every event statistic) of a recommendation."""
    kpis = sorted({name for candidate in data["candidates"] for name in candidate.get("kpis", {})})
    events = sorted({name for candidate in data["candidates"] for name in candidate.get("events", {})})
    return [PROBABILITY, RETURN, *(f"kpi:{name}" for name in kpis)], [f"event:{name}" for name in events]


def metric_values(data: Mapping[str, Any], metric: str) -> list[tuple[float, float]]:
    """(mean, std) of ``metric`` for each candidate (``probability``, ``forecast_return``, ``kpi:<name>``, ``event:<name>``).

    Raises:
        KeyError: The metric is of none of these forms.
    """
    if metric == PROBABILITY:
        return [_statistic(candidate["probability"]) for candidate in data["candidates"]]
    if metric == RETURN:
        return [_statistic(candidate[RETURN]) for candidate in data["candidates"]]
    kind, _, name = metric.partition(":")
    if kind not in ("kpi", "event") or not name:
        raise KeyError(f"unknown metric {metric!r}: use {PROBABILITY!r}, {RETURN!r}, 'kpi:<name>' or 'event:<name>'")
    group = "kpis" if kind == "kpi" else "events"
    return [_statistic(candidate.get(group, {}).get(name)) for candidate in data["candidates"]]


def plot_recommendation(recommendation: Any, metrics: Optional[Sequence[str]] = None) -> Any:
    """The recommendation as bars: one panel per metric, one bar per candidate with ± std, the policy's choice marked.

    Args:
        recommendation: A ``Recommendation`` or its ``to_dict()``.
        metrics: The panels (see :func:`metric_values`); None: probability, forecast return and every KPI.

    Returns:
        A matplotlib ``Figure`` (not registered with pyplot: any backend, no display). Each panel's
        bars are ``axes.patches``, top to bottom in rank order.
    """
    from matplotlib.figure import Figure

    data = recommendation_data(recommendation)
    metrics = list(metrics if metrics is not None else metric_names(data)[0])
    candidates = data["candidates"]
    labels = [candidate_label(candidate) for candidate in candidates]
    colours = [_POLICY_COLOUR if candidate.get("is_policy_choice") else _OTHER_COLOUR for candidate in candidates]
    columns = min(len(metrics), 3) or 1
    rows = max(1, math.ceil(len(metrics) / columns))
    figure = Figure(figsize=(4.2 * columns + 1.5, 0.45 * len(candidates) * rows + 1.4 * rows))
    figure.suptitle(_title(data))
    for index, metric in enumerate(metrics):
        axes = figure.add_subplot(rows, columns, index + 1)
        values = metric_values(data, metric)
        positions = list(range(len(candidates)))
        means = [0.0 if math.isnan(mean) else mean for mean, _ in values]
        spreads = [std for _, std in values] if metric != PROBABILITY else None
        axes.barh(positions, means, xerr=spreads, color=colours, capsize=3, ecolor="0.3")
        axes.set_yticks(positions, labels if index % columns == 0 else [""] * len(labels))
        axes.invert_yaxis()  # rank 0 on top
        axes.set_title(metric.split(":", 1)[-1], fontsize="medium")
        axes.axvline(0.0, color="0.6", linewidth=0.8)
        for position, (mean, _) in zip(positions, values, strict=True):
            if math.isnan(mean):
                axes.text(0.0, position, " n/a", va="center", fontsize="small", color="0.4")
    figure.tight_layout()
    return figure


def _title(data: Mapping[str, Any]) -> str:
    finished, requested = data.get("rollouts_finished"), data.get("rollouts_requested")
    parts = [f"horizon {data.get('horizon', '?')}", f"{finished}/{requested} rollouts"]
    if data.get("timed_out"):
        parts.append("timed out")
    return "Recommendation: " + ", ".join(parts) + "  (★ the policy's choice, bars ± std)"


def _table(data: Mapping[str, Any], kpis: Sequence[str]) -> str:
    """The candidates as an HTML table: rank, action, probability, return and each KPI (mean ± std)."""

    def cell(mean: float, std: float) -> str:
        return "n/a" if math.isnan(mean) else f"{mean:.4g} ± {std:.2g}"

    header = ["rank", "action", "probability", "return", *kpis, "rollouts"]
    rows = []
    for index, candidate in enumerate(data["candidates"]):
        values = [cell(*metric_values(data, f"kpi:{kpi}")[index]) for kpi in kpis]
        rows.append(
            [
                f"{candidate['rank']}{' ★' if candidate.get('is_policy_choice') else ''}",
                candidate_label(candidate, width=80).split(" ", 1)[1].removesuffix(" ★"),
                f"{_statistic(candidate['probability'])[0]:.3f}",
                cell(*_statistic(candidate[RETURN])),
                *values,
                str(candidate.get("rollouts_finished", "")),
            ]
        )
    return html_table(header, rows)


class NotebookRecommendationViewer:
    """Shows a recommendation in a notebook: a summary, the candidates' table and their forecast bars.

    Args:
        recommendation: A ``Recommendation`` (maze-deploy) or its ``to_dict()`` (the agent service's answer).

    Raises:
        ValueError: The data is no recommendation.
    """

    def __init__(self, recommendation: Any) -> None:
        self.data = recommendation_data(recommendation)
        self.default_metrics, self.event_metrics = metric_names(self.data)
        self.widget: Any = None

    def build(self) -> Any:
        """Builds the widget (shown when it is the value of a notebook cell) and draws the default metrics.

        Returns:
            An ``ipywidgets.VBox``; :attr:`summary`, :attr:`table` (HTML), :attr:`metric_selector`
            (a SelectMultiple of every metric, the default ones selected) and :attr:`picture` (an Output)
            are its parts.
        """
        widgets = import_extra("ipywidgets", "notebook", "NotebookRecommendationViewer")
        kpis = [metric.split(":", 1)[1] for metric in self.default_metrics if metric.startswith("kpi:")]
        self.summary = widgets.HTML(f"<b>{html.escape(_title(self.data))}</b>")
        self.table = widgets.HTML(_table(self.data, kpis))
        self.metric_selector = widgets.SelectMultiple(
            options=[*self.default_metrics, *self.event_metrics],
            value=tuple(self.default_metrics),
            description="metrics",
            rows=min(8, len(self.default_metrics) + len(self.event_metrics)),
        )
        self.picture = widgets.Output()
        self.metric_selector.observe(lambda _: self.show(), names="value")
        self.widget = widgets.VBox([self.summary, self.table, self.metric_selector, self.picture])
        self.show()
        return self.widget

    @property
    def metrics(self) -> list[str]:
        """The metrics drawn (the default ones before :meth:`build`)."""
        return list(self.metric_selector.value) if self.widget is not None else list(self.default_metrics)

    def figure(self) -> Any:
        """The figure of the selected metrics (see :func:`plot_recommendation`)."""
        return plot_recommendation(self.data, self.metrics)

    def show(self) -> None:
        """Draws the selected metrics into the picture."""
        display = import_extra("IPython.display", "notebook", "NotebookRecommendationViewer")
        with self.picture:
            display.clear_output(wait=True)
            if self.metrics:
                display.display(self.figure())
