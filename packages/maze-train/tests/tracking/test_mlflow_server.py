"""``logger=mlflow`` against a real ``mlflow server`` on loopback: sweeps as nested runs, a server that goes away."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from maze.train.tensorboard import read_scalars
from mlflow.tracking import MlflowClient
from tracking_support import (
    TINY_PPO,
    TRAIN_LEARNING_RATE,
    WARNING,
    MlflowServer,
    assert_success,
    executable,
    job_env,
    maze_run,
)

LEARNING_RATES = ("0.001", "0.002", "0.003", "0.004")


def test_a_4_job_sweep_gives_4_child_runs_of_one_parent_with_the_objective(
    mlflow_server: MlflowServer, tmp_path: Path
) -> None:
    uri = mlflow_server.ensure_running()
    result = maze_run(
        *TINY_PPO, "algorithm.n_epochs=1", "logger=mlflow", f"logger.tracking_uri={uri}", "logger.experiment_name=sweep",
        f"algorithm.lr={','.join(LEARNING_RATES)}", "hydra/launcher=local", "hydra.launcher.n_jobs=2",
        "hydra.sweep.dir=sweep", "--multirun", cwd=tmp_path,
    )  # fmt: skip
    assert_success(result)
    client = MlflowClient(uri)
    experiment = client.get_experiment_by_name("sweep").experiment_id
    parent_id = json.loads((tmp_path / "sweep" / "tracking_mlflow.json").read_text())["run_id"]
    runs = client.search_runs([experiment])
    assert {run.info.run_id for run in runs} == {parent_id} | {
        json.loads((tmp_path / "sweep" / str(job) / "tracking_mlflow.json").read_text())["run_id"] for job in range(4)
    }
    children = [run for run in runs if run.info.run_id != parent_id]
    assert all(run.data.tags["mlflow.parentRunId"] == parent_id for run in children)
    assert client.get_run(parent_id).info.run_name == "sweep sweep"
    objectives = {job["params"]["algorithm.lr"]: job["objective"] for job in _sweep_jobs(tmp_path / "sweep")}
    assert sorted(run.data.params["algorithm.lr"] for run in children) == list(LEARNING_RATES)
    for run in children:
        assert run.info.status == "FINISHED"
        assert run.data.metrics["objective"] == objectives[run.data.params["algorithm.lr"]]
        assert f"algorithm.lr={run.data.params['algorithm.lr']}" in run.data.tags["maze.sweep.overrides"]
        assert "state_dict.pt" in {artifact.path for artifact in client.list_artifacts(run.info.run_id)}


def _sweep_jobs(sweep_dir: Path) -> list[dict]:
    """The jobs of the sweep summary, with the swept learning rate as the text of its override."""
    return json.loads((sweep_dir / "sweep_summary.json").read_text())["jobs"]


def test_stopping_the_server_mid_run_gives_one_warning_and_the_training_finishes(
    mlflow_server: MlflowServer, tmp_path: Path
) -> None:
    uri = mlflow_server.ensure_running()
    # the server stops at the start of the third epoch: 28 epochs are left to log, so one of them fails
    epochs = 30
    command = [*(executable("maze-run"), *TINY_PPO), f"algorithm.n_epochs={epochs}", "algorithm.patience=0"]
    command += ["logger=mlflow", f"logger.tracking_uri={uri}"]
    job = subprocess.Popen(
        [*command, "hydra.run.dir=run"], cwd=tmp_path, env=job_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    stdout = ""
    for line in job.stdout:
        stdout += line
        if line.startswith("********** Iteration 2"):  # two epochs trained
            break
    mlflow_server.stop()
    rest, stderr = job.communicate(timeout=600)
    output = stdout + rest + stderr
    assert job.returncode == 0, output[-3000:]
    assert output.count(WARNING) == 1, output[-3000:]
    assert json.loads((tmp_path / "run" / "training_summary.json").read_text())["epochs"] == epochs
    assert [step for step, _ in read_scalars(tmp_path / "run")[TRAIN_LEARNING_RATE]] == list(range(1, epochs + 1))
