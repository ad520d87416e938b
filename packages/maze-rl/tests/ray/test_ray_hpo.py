"""Sweeps with hydra/launcher=ray: maze-run --multirun runs its jobs as Ray tasks on the session's local Ray."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

TINY_TRAINING = (
    "env.name=CartPole-v1",
    "algorithm=ppo",
    "model=vector_obs",
    "runner=dev",
    "runner.concurrency=2",
    "algorithm.n_epochs=1",
    "algorithm.epoch_length=2",
    "algorithm.n_rollout_steps=20",
    "algorithm.rollout_evaluator.n_episodes=2",
    "seeding.env_base_seed=1",
    "seeding.agent_base_seed=2",
)
"""A PPO job of seconds."""


def test_a_sweep_on_the_ray_launcher_runs_its_jobs_as_ray_tasks_and_ends_with_a_summary(
    ray_local: Any, tmp_path: Path
) -> None:
    maze_run = shutil.which("maze-run", path=str(Path(sys.executable).parent))
    assert maze_run, "the maze-run console script is not installed"
    address = ray_local.get_runtime_context().gcs_address
    command = [
        maze_run, "-cn", "conf_train", *TINY_TRAINING, "algorithm.lr=0.001,0.0005,0.0002", "hydra/launcher=ray",
        f"hydra.launcher.ray_address={address}", "hydra.sweep.dir=sweep", "--multirun",
    ]  # fmt: skip
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run(command, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300)

    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "[launcher] jobs run as Ray tasks of 1 CPUs on a Ray of 2 CPUs" in result.stdout
    assert "[launcher] 3 jobs, 2 at a time" in result.stdout
    assert result.stdout.count("done: objective") == 3
    summary = json.loads((tmp_path / "sweep" / "sweep_summary.json").read_text())
    assert [job["status"] for job in summary["jobs"]] == ["completed"] * 3
    for job in summary["jobs"]:
        job_dir = tmp_path / "sweep" / str(job["number"])
        training = json.loads((job_dir / "training_summary.json").read_text())
        assert training["best_eval_reward"] == job["objective"]
        assert (job_dir / "maze_cli.log").is_file()
