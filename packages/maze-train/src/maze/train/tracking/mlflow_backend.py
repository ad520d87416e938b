"""The MLflow side of tracking, run inside the tracking process (``logger=mlflow``).

Uses MLflow's ``MlflowClient`` (extra ``maze-train[mlflow]``): one MLflow run per training
run in the experiment ``experiment_name``, the resolved config as parameters, the statistics
as metrics at the env-step count, the run directory's results as artifacts and the end as
the run status (``FINISHED``, ``FAILED``, ``KILLED`` for an interrupted run; a run the store
stops taking midway ends ``FAILED`` where the store still takes that). The trained policy
is logged as an MLflow model (pyfunc flavour, ``runs:/<run id>/policy``, see
:mod:`maze.train.tracking.mlflow_model`) that ``mlflow models serve`` and the registry take.

* A SQLite store (the default, ``sqlite:///<log_base_dir>/mlflow.db``) keeps the artifacts
  beside it in ``mlartifacts/``; a server (``http://...``) keeps them where it is configured to.
  Processes that open the same SQLite store (the jobs of a sweep) take turns creating it.
* A sweep job's run is a child of one parent run per sweep directory (MLflow's nested runs);
  the first job creates the parent and records it in ``<sweep dir>/tracking_mlflow.json``.
* A resumed run continues its MLflow run: parameters it already has keep their values
  (MLflow parameters are immutable), new ones are added.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Optional

from maze.train.tracking.protocol import read_tracked_run_id, write_tracked_run_id

logger = logging.getLogger(__name__)

__all__ = ["MLflowBackend", "sqlite_store_path"]

NAME = "mlflow"

_STATUS = {"finished": "FINISHED", "failed": "FAILED", "interrupted": "KILLED"}

_BATCH = 100
"""Entries per ``log_batch`` call (MLflow takes at most 100 parameters or 1000 metrics per call)."""

_HTTP_DEFAULTS = {
    "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2",
    "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
    "MLFLOW_HTTP_REQUEST_TIMEOUT": "20",
}
"""A server that is down is reported after seconds, not after MLflow's default of minutes of retries; the
environment variables of the same names override these."""


def sqlite_store_path(tracking_uri: str) -> Optional[Path]:
    """The database file of a ``sqlite:///`` tracking URI (None for other stores)."""
    prefix = "sqlite:///"
    return Path(tracking_uri[len(prefix) :]) if tracking_uri.startswith(prefix) else None


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Holds an exclusive lock on ``path`` (created when missing) among processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class MLflowBackend:
    """Tracks one training run in MLflow; connecting (import, store, experiment) happens at construction.

    Args:
        settings: The ``logger`` config: ``tracking_uri`` (resolved: never None here) and
            ``experiment_name``.
    """

    def __init__(self, settings: dict[str, Any]) -> None:
        for variable, value in _HTTP_DEFAULTS.items():
            os.environ.setdefault(variable, value)
        from mlflow.tracking import MlflowClient

        self.tracking_uri = str(settings["tracking_uri"])
        self.experiment_name = str(settings.get("experiment_name") or "maze")
        store = sqlite_store_path(self.tracking_uri)
        with _file_lock(store.with_name(store.name + ".lock")) if store else contextlib.nullcontext():
            self.client = MlflowClient(self.tracking_uri)  # a new store gets its tables at first use: one at a time
            self.experiment_id = self._experiment_id(store)
        self.run_id = ""
        self.parent_id: Optional[str] = None
        self._steps_seen: set[int] = set()
        self.run_dir = Path()

    def start(self, run: dict[str, Any]) -> None:
        """Creates (or, for a resumed run, reopens) the MLflow run, logs parameters and tags and records its id."""
        from mlflow.utils.mlflow_tags import MLFLOW_PARENT_RUN_ID

        self.run_dir = Path(run["run_dir"])
        experiment_id = self.experiment_id
        tags = {**run["tags"], "maze.run_dir": str(self.run_dir)}
        if run.get("sweep"):
            self.parent_id = self._sweep_parent(experiment_id, run["sweep"])
            tags.update({MLFLOW_PARENT_RUN_ID: self.parent_id, "maze.sweep.job": str(run["sweep"]["job"])})
            tags["maze.sweep.overrides"] = " ".join(run["sweep"]["overrides"])
        params = dict(run["params"])
        resumed = self._resumable(run.get("resume_id"))
        if resumed is not None:
            self.run_id = resumed.info.run_id
            self.client.update_run(self.run_id, status="RUNNING")
            params = {key: value for key, value in params.items() if key not in resumed.data.params}
        else:
            self.run_id = self.client.create_run(experiment_id, run_name=run["name"]).info.run_id
        write_tracked_run_id(self.run_dir, NAME, self.run_id, tracking_uri=self.tracking_uri)  # before any upload
        self._log_batch(params=params, tags=tags)

    def log_metrics(self, step: int, epoch: int, time_ms: int, values: dict[str, float]) -> None:
        """Logs ``values`` at ``step`` (the env-step count), with the epoch the first time the step comes."""
        epoch_metric = {} if step in self._steps_seen else {"epoch": float(epoch)}
        self._steps_seen.add(step)
        self._log_batch(metrics={**values, **epoch_metric}, step=step, time_ms=time_ms)

    def finish(self, status: str, artifacts: Sequence[Path], objective: Optional[float], step: int) -> None:
        """Uploads the artifacts and the policy model, logs the objective and ends the run (and the sweep parent's)."""
        for path in artifacts:
            self.client.log_artifact(self.run_id, str(path))
        self._log_model()
        if objective is not None:
            self._log_batch(metrics={"objective": objective}, step=step, time_ms=int(time.time() * 1000))
        self.end(status)

    def end(self, status: str) -> None:
        """Ends the run (if one was created) as ``status`` without uploading anything more, and the sweep parent's."""
        if self.run_id:
            self.client.set_terminated(self.run_id, _STATUS[status])
        if self.parent_id is not None:
            self.client.set_terminated(self.parent_id, "FINISHED")

    # --- pieces ----------------------------------------------------------------------------

    def _log_model(self) -> None:
        """Logs the run directory's policy as an MLflow model of this run (nothing without a checkpoint)."""
        import mlflow
        from maze.train.tracking.mlflow_model import log_policy_model

        mlflow.set_tracking_uri(self.tracking_uri)
        with mlflow.start_run(run_id=self.run_id):  # the model is linked to the active run; its status is set after
            log_policy_model(self.run_dir)

    def _experiment_id(self, store: Optional[Path]) -> str:
        """The id of ``experiment_name``, created when missing (with a SQLite store: artifacts in ``mlartifacts/``)."""
        from mlflow.exceptions import MlflowException

        experiment = self.client.get_experiment_by_name(self.experiment_name)
        if experiment is not None:
            return experiment.experiment_id
        location = (store.parent / "mlartifacts").resolve().as_uri() if store else None
        try:
            return self.client.create_experiment(self.experiment_name, artifact_location=location)
        except MlflowException:  # another job of a sweep created it meanwhile (a server has no file lock)
            experiment = self.client.get_experiment_by_name(self.experiment_name)
            if experiment is None:
                raise
            return experiment.experiment_id

    def _resumable(self, run_id: Optional[str]) -> Any:
        """The MLflow run to continue (None: none given, or it is not in this store, so a new run starts)."""
        from mlflow.exceptions import MlflowException

        if not run_id:
            return None
        try:
            return self.client.get_run(run_id)
        except MlflowException:
            logger.warning(f"The run to resume, {run_id}, is not in {self.tracking_uri}: starting a new MLflow run")
            return None

    def _sweep_parent(self, experiment_id: str, sweep: dict[str, Any]) -> str:
        """The parent run of the sweep in ``sweep["dir"]``: the first job creates it, the others find it."""
        sweep_dir = Path(sweep["dir"])
        with _file_lock(sweep_dir / ".tracking_mlflow.lock"):
            parent_id = read_tracked_run_id(sweep_dir, NAME)
            if parent_id is None:
                parent = self.client.create_run(
                    experiment_id, tags={"maze.sweep_dir": str(sweep_dir)}, run_name=f"sweep {sweep_dir.name}"
                )
                parent_id = parent.info.run_id
                write_tracked_run_id(sweep_dir, NAME, parent_id, tracking_uri=self.tracking_uri)
        return parent_id

    def _log_batch(
        self,
        params: Optional[dict[str, str]] = None,
        tags: Optional[dict[str, str]] = None,
        metrics: Optional[dict[str, float]] = None,
        step: int = 0,
        time_ms: int = 0,
    ) -> None:
        """Logs parameters, tags and metrics in batches of :data:`_BATCH` entries."""
        from mlflow.entities import Metric, Param, RunTag

        entries: list[Any] = [Param(key, value) for key, value in (params or {}).items()]
        entries += [RunTag(key, value) for key, value in (tags or {}).items()]
        entries += [Metric(key, value, time_ms, step) for key, value in (metrics or {}).items()]
        for start in range(0, len(entries), _BATCH):
            batch = entries[start : start + _BATCH]
            self.client.log_batch(
                self.run_id,
                metrics=[entry for entry in batch if isinstance(entry, Metric)],
                params=[entry for entry in batch if isinstance(entry, Param)],
                tags=[entry for entry in batch if isinstance(entry, RunTag)],
            )
