"""The Weights & Biases side of tracking, run inside the tracking process (``logger=wandb``).

Uses the ``wandb`` client (extra ``maze-train[wandb]``): one W&B run per training run in
``project``, the resolved config as its config (flattened, dotted keys), the statistics as
history rows against the custom x axis ``step`` (the env-step count; evaluations of earlier
epochs arrive after later training rows, which W&B's own step would drop), the run
directory's results as one artifact and the end as the exit code (0 finished, 1 failed,
130 interrupted). ``mode=offline`` writes the run into ``<run dir>/wandb/offline-run-*``
without any network (``wandb sync`` uploads it later). A sweep job joins the group of its
sweep; a resumed run continues its W&B run (``resume="allow"``).
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from maze.train.tracking.protocol import write_tracked_run_id

__all__ = ["WandbBackend"]

NAME = "wandb"

STEP_METRIC = "step"
"""The x axis of every logged statistic: the env-step count (the epoch for trainers without env steps)."""

_EXIT_CODES = {"finished": 0, "failed": 1, "interrupted": 130}

_ID_CHARACTERS = string.ascii_lowercase + string.digits


class WandbBackend:
    """Tracks one training run in Weights & Biases; the library is imported at construction.

    Args:
        settings: The ``logger`` config: ``project``, ``entity`` (None: the default entity of
            the login) and ``mode`` (``online``, ``offline`` or ``disabled``).
    """

    def __init__(self, settings: dict[str, Any]) -> None:
        import wandb  # noqa: F401 - imported now, while the training starts up; the run starts with `start`

        self.project = str(settings.get("project") or "maze")
        self.entity = settings.get("entity")
        self.mode = str(settings.get("mode") or "online")
        self.run: Any = None

    def start(self, run: dict[str, Any]) -> None:
        """Starts (or resumes) the W&B run with its config and tags and records its id."""
        import wandb

        run_dir = Path(run["run_dir"])
        sweep = run.get("sweep")
        resume_id = run.get("resume_id")
        run_id = resume_id or _new_run_id()
        write_tracked_run_id(run_dir, NAME, run_id, project=self.project, mode=self.mode)  # before any upload
        self.run = wandb.init(
            project=self.project,
            entity=self.entity,
            mode=self.mode,
            dir=str(run_dir),
            name=run["name"],
            id=run_id,
            resume="allow" if resume_id else None,
            group=f"sweep {Path(sweep['dir']).name}" if sweep else None,
            job_type="sweep-job" if sweep else "train",
            tags=[f"{key}:{value}"[:64] for key, value in run["tags"].items()],
            notes=f"maze run directory: {run_dir}",
            settings=wandb.Settings(console="off", silent=True),
        )
        self.run.config.update(run["params"], allow_val_change=True)
        if sweep:
            self.run.config.update({"sweep.job": sweep["job"], "sweep.overrides": sweep["overrides"]})
        self.run.define_metric(STEP_METRIC)
        self.run.define_metric("*", step_metric=STEP_METRIC)

    def log_metrics(self, step: int, epoch: int, time_ms: int, values: dict[str, float]) -> None:
        """Logs one history row: ``values`` with ``step`` (the env-step count) and ``epoch``."""
        self.run.log({**values, STEP_METRIC: step, "epoch": epoch})

    def finish(self, status: str, artifacts: Sequence[Path], objective: Optional[float], step: int) -> None:
        """Logs the artifacts (one ``run-files`` artifact) and the objective, then ends the run."""
        import wandb

        if artifacts:
            artifact = wandb.Artifact(f"run-{self.run.id}", type="run-files")
            for path in artifacts:
                artifact.add_file(str(path))
            self.run.log_artifact(artifact)
        if objective is not None:
            self.run.summary["objective"] = objective
        self.end(status)

    def end(self, status: str) -> None:
        """Ends the run (if one was started) with the exit code of ``status``, without logging anything more."""
        if self.run is not None:
            self.run.finish(exit_code=_EXIT_CODES[status])


def _new_run_id() -> str:
    """A new W&B run id: 8 random lowercase letters and digits (chosen here, so it is recorded before ``wandb.init``)."""
    return "".join(secrets.choice(_ID_CHARACTERS) for _ in range(8))
