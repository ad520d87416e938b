"""Trajectory and event viewers, statistics plots, run comparison and inference-graph PDFs. Never imports torch.

* Viewers of recorded episodes: :class:`NotebookTrajectoryViewer`,
  :class:`NotebookEventLogsViewer` (ipywidgets, the ``notebook`` extra) and
  :class:`KeyboardControlledTrajectoryViewer` (a matplotlib window).
* Statistics figures: :class:`StepStatsRenderer`, :class:`EventStatsRenderer` and the
  figure functions of :mod:`maze.viz.plots`.
* Training curves: :func:`tensorboard_to_pandas` and :func:`plot_run_comparison` (the
  ``tensorboard`` extra); :func:`mlflow_to_pandas` for runs in an MLflow store (the ``mlflow`` extra).
* Recommendations of a deployed agent (``AgentDeployment.recommend``, the agent service):
  :class:`NotebookRecommendationViewer` and :func:`plot_recommendation`.
* :class:`InferenceGraph`: inference-graph drawing to PDF.
"""

from importlib.metadata import version as _version

from maze.viz.event_logs import EventRow, episode_event_log, episode_kpis, event_rows
from maze.viz.inference_graph import InferenceGraph
from maze.viz.keyboard_viewer import KeyboardControlledTrajectoryViewer
from maze.viz.mlflow_runs import mlflow_to_pandas
from maze.viz.notebook import NotebookEventLogsViewer, NotebookTrajectoryViewer
from maze.viz.plots import (
    create_categorical_plot,
    create_histogram,
    create_relative_bar_plot,
    create_violin_distribution,
    figure_to_png,
)
from maze.viz.recommendation import NotebookRecommendationViewer, plot_recommendation, recommendation_data
from maze.viz.run_comparison import DEFAULT_METRIC, RunDataError, plot_run_comparison, tensorboard_to_pandas
from maze.viz.stats_renderers import EventStatsRenderer, StepStatsRenderer
from maze.viz.trajectories import describe_step, load_state_trajectory, render_step, replay_renderer, trajectory_files

__version__ = _version("maze-viz")

__all__ = [
    "InferenceGraph",
    "NotebookTrajectoryViewer",
    "NotebookEventLogsViewer",
    "NotebookRecommendationViewer",
    "plot_recommendation",
    "recommendation_data",
    "KeyboardControlledTrajectoryViewer",
    "StepStatsRenderer",
    "EventStatsRenderer",
    "EventRow",
    "episode_event_log",
    "event_rows",
    "episode_kpis",
    "trajectory_files",
    "load_state_trajectory",
    "replay_renderer",
    "render_step",
    "describe_step",
    "create_categorical_plot",
    "create_relative_bar_plot",
    "create_violin_distribution",
    "create_histogram",
    "figure_to_png",
    "tensorboard_to_pandas",
    "mlflow_to_pandas",
    "plot_run_comparison",
    "RunDataError",
    "DEFAULT_METRIC",
    "__version__",
]
