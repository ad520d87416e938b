"""``logger=wandb`` with ``mode=offline``: the run's W&B history holds the statistics (no network)."""

from __future__ import annotations

import json

import pytest
from maze.train.tensorboard import read_scalars
from tracking_support import EVAL_MEAN, STEPS_PER_EPOCH, TRAIN_MEAN, TrackedJob, wandb_history


def test_an_offline_run_writes_the_statistics_into_its_wandb_history(tracked_run: TrackedJob) -> None:
    run_id = json.loads((tracked_run.run_dir / "tracking_wandb.json").read_text())["run_id"]
    assert list(tracked_run.run_dir.glob(f"wandb/offline-run-*-{run_id}"))
    rows = wandb_history(tracked_run.run_dir)
    scalars = read_scalars(tracked_run.run_dir)
    assert TRAIN_MEAN in scalars and EVAL_MEAN in scalars
    for tag, points in scalars.items():
        logged = sorted((row["step"], row[tag]) for row in rows if tag in row)
        assert [step for step, _ in logged] == [STEPS_PER_EPOCH * epoch for epoch, _ in points], tag
        assert [value for _, value in logged] == pytest.approx([value for _, value in points], rel=1e-6), tag
    assert {row["epoch"] for row in rows} == {1, 2}
    logged_tags = {key for row in rows for key in row if not key.startswith("_")}
    assert logged_tags == set(scalars) | {"step", "epoch"}
