"""Experiment tracking: MLflow and Weights & Biases beside TensorBoard (the ``logger`` config group).

``maze-run -cn conf_train ... logger=mlflow`` (extra ``maze-train[mlflow]``), ``logger=wandb``
(extra ``maze-train[wandb]``) or ``logger=[mlflow,wandb]`` tracks the run: the resolved config
as parameters, every statistics table as metrics at the env-step count, the run directory's
results as artifacts, env/algorithm/model/runner tags and the final status. The runner
starts the writers with :func:`start_tracking`; each is a :class:`TrackingWriter`, a
statistics writer whose library runs in a child process (:mod:`maze.train.tracking.worker`).

The names below load on first use: the tracking process imports this package without
numpy or maze.env, and no tracking library (nor torch) is imported by the training process.
"""

from __future__ import annotations

from maze.env.utils.lazy_exports import lazy_getattr

_EXPORTS = {
    "TrackedRun": "maze.train.tracking.run_info",
    "describe_run": "maze.train.tracking.run_info",
    "TrackingWriter": "maze.train.tracking.writer",
    "start_tracking": "maze.train.tracking.setup",
}

__all__ = list(_EXPORTS)

__getattr__ = lazy_getattr("maze.train.tracking", _EXPORTS)
