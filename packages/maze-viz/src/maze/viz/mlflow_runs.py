"""Training curves from an MLflow store: the sibling of :func:`~maze.viz.run_comparison.tensorboard_to_pandas`.

Runs tracked with ``logger=mlflow`` hold every statistic as an MLflow metric named like its
TensorBoard tag (``eval_BaseEnvEvents/reward/mean``), at the env-step count. With the
``mlflow`` extra (``pip install -c tools/constraints.txt './packages/maze-viz[mlflow]'`` from the repository root: mlflow and
pandas):

* :func:`mlflow_to_pandas` - every metric of one run as a DataFrame;
* ``maze-compare-runs --tracking-uri URI RUN [RUN ...]`` - the curves of runs named by id
  or name, e.g. from a tracking server shared by a team (see :mod:`maze.viz.run_comparison`).
"""

from __future__ import annotations

from typing import Any

from maze.viz._extras import import_extra
from maze.viz.run_comparison import RunDataError

__all__ = ["mlflow_to_pandas"]


def mlflow_to_pandas(run: str, tracking_uri: str) -> Any:
    """The metrics of an MLflow run.

    Args:
        run: The run's id, or its name (unique in the store; e.g.
            ``gym_env-vector_obs-ppo-dev/2024-05-01_12-00-00-000000``).
        tracking_uri: The store, e.g. ``sqlite:///outputs/mlflow.db`` or ``http://host:5000``.

    Returns:
        A ``pandas.DataFrame`` indexed by ``(tag, step)`` (step: the env-step count) with the
        columns ``value`` and ``wall_time`` (seconds), sorted by tag and step, like
        :func:`~maze.viz.run_comparison.tensorboard_to_pandas`.

    Raises:
        RunDataError: No run (or several runs) of that id or name.
        ImportError: The ``mlflow`` extra is not installed (the message names it).
    """
    pandas = import_extra("pandas", "mlflow", "mlflow_to_pandas")
    tracking = import_extra("mlflow.tracking", "mlflow", "mlflow_to_pandas")
    client = tracking.MlflowClient(tracking_uri)
    found = _find_run(client, run, tracking_uri)
    rows = [
        (key, metric.step, metric.value, metric.timestamp / 1000.0)
        for key in found.data.metrics
        for metric in client.get_metric_history(found.info.run_id, key)
    ]
    frame = pandas.DataFrame(rows, columns=["tag", "step", "value", "wall_time"])
    return frame.sort_values(["tag", "step"], kind="stable").set_index(["tag", "step"])


def _find_run(client: Any, run: str, tracking_uri: str) -> Any:
    """The MLflow run with id ``run``, else the one run named ``run``.

    Raises:
        RunDataError: No run or several runs match.
    """
    from mlflow.exceptions import MlflowException

    try:
        return client.get_run(run)
    except MlflowException:
        pass
    experiments = [experiment.experiment_id for experiment in client.search_experiments()]
    escaped = run.replace("'", "\\'")
    matches = client.search_runs(experiments, filter_string=f"attributes.run_name = '{escaped}'") if experiments else []
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise RunDataError(f"no MLflow run with the id or name {run!r} in {tracking_uri}; `mlflow ui` lists the runs")
    ids = ", ".join(match.info.run_id for match in matches)
    raise RunDataError(f"{len(matches)} MLflow runs are named {run!r} in {tracking_uri} ({ids}); pass one run id")
