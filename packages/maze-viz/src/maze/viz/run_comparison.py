"""Training curves from TensorBoard event files, without a TensorBoard server.

* :func:`tensorboard_to_pandas` - every scalar of a run directory as a DataFrame;
* :func:`plot_run_comparison` - one metric over the epochs of several runs in one figure
  (PNG, PDF, ... by the file suffix), e.g. BC-then-PPO against PPO from scratch;
* the command ``maze-compare-runs RUN_DIR [RUN_DIR ...] [--metric TAG] [--labels ...]
  [--out FILE]`` (also ``python -m maze.viz.run_comparison``); with ``--tracking-uri URI``
  the runs are MLflow run ids or names in that store (:mod:`maze.viz.mlflow_runs`).

Needs the ``tensorboard`` extra: ``pip install -c tools/constraints.txt './packages/maze-viz[tensorboard]'`` (tensorboard
to read the event files, pandas for the frames); torch is never imported.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, Union

from maze.env.errors import MazeError
from maze.viz._extras import import_extra

__all__ = ["RunDataError", "DEFAULT_METRIC", "tensorboard_to_pandas", "plot_run_comparison", "main"]

DEFAULT_METRIC = "eval_BaseEnvEvents/reward/mean"
"""The evaluation's mean episode return per epoch."""

_EVENT_FILES = "events.out.tfevents.*"


class RunDataError(MazeError, ValueError):
    """A run directory has no (readable) TensorBoard event files, or lacks the requested metric."""


def tensorboard_to_pandas(run_dir: Union[str, os.PathLike]) -> Any:
    """The scalars of the TensorBoard event files in ``run_dir`` (a training run directory).

    Returns:
        A ``pandas.DataFrame`` indexed by ``(tag, step)`` with the columns ``value`` and
        ``wall_time``, sorted by tag and step; ``df.loc["train_BaseEnvEvents/reward/mean"]``
        is that curve by epoch.

    Raises:
        RunDataError: ``run_dir`` is no directory or holds no event files.
        ImportError: The ``tensorboard`` extra is not installed (the message names it).
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunDataError(f"run directory {run_dir} does not exist; pass the output directory of a training run")
    if not any(run_dir.glob(_EVENT_FILES)):
        raise RunDataError(
            f"no TensorBoard event files ({_EVENT_FILES}) in {run_dir}; pass the output directory of a training run "
            "(maze-run -cn conf_train ... writes them there)"
        )
    pandas = import_extra("pandas", "tensorboard", "tensorboard_to_pandas")
    accumulator_module = import_extra(
        "tensorboard.backend.event_processing.event_accumulator", "tensorboard", "tensorboard_to_pandas"
    )
    accumulator = accumulator_module.EventAccumulator(
        str(run_dir), size_guidance={accumulator_module.SCALARS: 0}, purge_orphaned_data=False
    )
    accumulator.Reload()
    rows = [
        (tag, event.step, event.value, event.wall_time)
        for tag in accumulator.Tags()["scalars"]
        for event in accumulator.Scalars(tag)
    ]
    frame = pandas.DataFrame(rows, columns=["tag", "step", "value", "wall_time"])
    return frame.sort_values(["tag", "step"], kind="stable").set_index(["tag", "step"])


def _default_label(run_dir: Path) -> str:
    """``<experiment>/<timestamp>`` for maze-run's layout, else the directory name."""
    return f"{run_dir.parent.name}/{run_dir.name}" if run_dir.parent.name else run_dir.name


def plot_run_comparison(
    run_dirs: Sequence[Union[str, os.PathLike]],
    metric: str = DEFAULT_METRIC,
    labels: Optional[Sequence[str]] = None,
    out: Optional[Union[str, os.PathLike]] = None,
    title: Optional[str] = None,
    tracking_uri: Optional[str] = None,
) -> Any:
    """Draws ``metric`` over the epochs (log steps) of every run, one labelled curve per run.

    Args:
        run_dirs: Training run directories; with ``tracking_uri``: MLflow run ids or names.
        metric: The scalar tag to compare (default: the evaluation's mean return).
        labels: One legend label per run (default: ``<experiment dir>/<run dir>``).
        out: Saves the figure there (format from the suffix: .png, .pdf, .svg); None: do not save.
        title: Figure title (default: the metric).
        tracking_uri: Read the runs from this MLflow store (see :func:`~maze.viz.mlflow_runs.mlflow_to_pandas`)
            instead of event files; the curves are drawn over the env-step count.

    Returns:
        The matplotlib figure (not registered with pyplot).

    Raises:
        RunDataError: No run directory is given, the labels do not match the runs, or a
            run lacks event files or the metric (the message lists the run's reward tags).
    """
    if not run_dirs:
        raise RunDataError("plot_run_comparison needs at least one run directory")
    paths = [Path(run_dir) for run_dir in run_dirs]
    if labels is not None and len(labels) != len(paths):
        raise RunDataError(f"got {len(labels)} labels for {len(paths)} run directories; give one label per run")
    curves = []
    for path in paths:
        frame = tensorboard_to_pandas(path) if tracking_uri is None else _mlflow_frame(str(path), tracking_uri)
        tags = frame.index.get_level_values("tag").unique()
        if metric not in tags:
            hints = [tag for tag in tags if "reward" in tag] or list(tags)
            raise RunDataError(
                f"run {path} has no scalar {metric!r}; choose --metric from its tags, e.g. {', '.join(hints[:8])}"
            )
        curves.append(frame.loc[metric]["value"])
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.0, 4.0), layout="constrained")
    axes = figure.add_subplot()
    default_labels = [_default_label(path) if tracking_uri is None else str(path) for path in paths]
    for label, curve in zip(labels or default_labels, curves, strict=True):
        axes.plot(curve.index.to_numpy(), curve.to_numpy(), marker="o", markersize=3, label=label)
    axes.set_xlabel("epoch (log step)" if tracking_uri is None else "env steps")
    axes.set_ylabel(metric)
    axes.set_title(title or metric)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize="small")
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(out)
    return figure


def _mlflow_frame(run: str, tracking_uri: str) -> Any:
    """The metrics of an MLflow run (imported here: maze.viz.mlflow_runs needs this module's RunDataError)."""
    from maze.viz.mlflow_runs import mlflow_to_pandas

    return mlflow_to_pandas(run, tracking_uri)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The ``maze-compare-runs`` command: draws a metric of several runs into one file.

    Returns:
        The exit code: 0, or 1 after printing ``Error: ...`` for bad input.
    """
    parser = argparse.ArgumentParser(
        prog="maze-compare-runs", description="Plot one TensorBoard metric of several training runs into one figure."
    )
    parser.add_argument(
        "run_dirs", nargs="+", help="training run directories (holding events.out.tfevents.*), or MLflow runs"
    )
    parser.add_argument(
        "--tracking-uri", help="read the runs (ids or names) from this MLflow store, e.g. sqlite:///outputs/mlflow.db"
    )
    parser.add_argument("--metric", default=DEFAULT_METRIC, help=f"scalar tag to plot (default: {DEFAULT_METRIC})")
    parser.add_argument("--labels", nargs="+", help="one legend label per run (default: the run directories)")
    parser.add_argument("--out", default="run_comparison.png", help="output file; .png, .pdf or .svg")
    parser.add_argument("--title", help="figure title (default: the metric)")
    args = parser.parse_args(argv)
    try:
        plot_run_comparison(args.run_dirs, args.metric, args.labels, args.out, args.title, args.tracking_uri)
    except (MazeError, ImportError) as error:
        print(f"Error: {error}", file=sys.stderr)
        return 1
    print(f"Wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
