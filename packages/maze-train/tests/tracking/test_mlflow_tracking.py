"""``logger=mlflow``: maze-run training jobs tracked in a real MLflow SQLite store (the default store)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from maze.train.tensorboard import read_scalars
from maze.viz import RunDataError, mlflow_to_pandas
from mlflow.tracking import MlflowClient
from omegaconf import OmegaConf
from tracking_support import (
    EVAL_MEAN,
    STEPS_PER_EPOCH,
    TINY_PPO,
    TRAIN_MEAN,
    WARNING,
    TrackedJob,
    assert_success,
    default_ctrl_c,
    executable,
    job_env,
    maze_run,
    metric_histories,
    sqlite_uri,
)

ARTIFACTS = {"state_dict.pt", "spaces_config.yaml", "model_config.yaml", "policy_0.pdf", "critic_0.pdf"}


def run_id_of(run_dir: Path) -> str:
    return json.loads((run_dir / "tracking_mlflow.json").read_text())["run_id"]


def plain_leaves(node: Any, prefix: str = "") -> dict[str, Any]:
    """The leaves of a config as dotted keys, without those that are interpolations."""
    if isinstance(node, dict) and node:
        return {
            key: value for name, child in node.items() for key, value in plain_leaves(child, f"{prefix}{name}.").items()
        }
    if isinstance(node, str) and "${" in node:
        return {}
    return {prefix.rstrip("."): node}


def test_a_ppo_run_logs_config_statistics_results_tags_and_status(tracked_run: TrackedJob) -> None:
    assert (tracked_run.cwd / "outputs" / "mlflow.db").is_file()  # the default store: <log_base_dir>/mlflow.db
    client = MlflowClient(tracked_run.tracking_uri)
    run_id = run_id_of(tracked_run.run_dir)
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED"
    assert client.get_experiment(run.info.experiment_id).name == "maze"
    tags = run.data.tags
    assert (tags["env"], tags["algorithm"], tags["model"], tags["runner"]) == (
        "CartPole-v1", "PPO", "TemplateModelComposer", "PPORunner",
    )  # fmt: skip
    assert tags["maze.run_dir"] == str(tracked_run.run_dir)
    # Parameters: the resolved config, flattened to dotted keys.
    config = OmegaConf.to_container(OmegaConf.load(tracked_run.run_dir / ".hydra" / "config.yaml"), resolve=False)
    leaves = plain_leaves(config)
    assert len(leaves) > 40
    for key, value in leaves.items():
        assert run.data.params[key] == (value if isinstance(value, str) else json.dumps(value)), key
    assert run.data.params["logger.launch_dir"] == str(tracked_run.cwd)  # interpolations are logged resolved
    # Metrics: every scalar of the statistics tables, at the env-step count of its epoch.
    scalars = read_scalars(tracked_run.run_dir)
    metrics = metric_histories(client, run_id)
    assert TRAIN_MEAN in scalars and EVAL_MEAN in scalars
    assert set(metrics) == set(scalars) | {"epoch", "objective"}
    for tag, points in scalars.items():
        assert [step for step, _ in metrics[tag]] == [STEPS_PER_EPOCH * epoch for epoch, _ in points], tag
        assert [value for _, value in metrics[tag]] == pytest.approx([value for _, value in points], rel=1e-6), tag
    assert metrics["epoch"] == [(STEPS_PER_EPOCH, 1.0), (2 * STEPS_PER_EPOCH, 2.0)]
    summary = json.loads((tracked_run.run_dir / "training_summary.json").read_text())
    assert metrics["objective"][-1][1] == summary["best_eval_reward"]
    # Artifacts: the run directory's results.
    artifacts = {artifact.path for artifact in client.list_artifacts(run_id)}
    assert artifacts == ARTIFACTS | {"training_summary.json"}
    downloaded = Path(client.download_artifacts(run_id, "state_dict.pt", str(tracked_run.cwd)))
    assert downloaded.read_bytes() == (tracked_run.run_dir / "state_dict.pt").read_bytes()


def test_maze_compare_runs_and_mlflow_to_pandas_read_runs_from_the_store(
    tracked_run: TrackedJob, tmp_path: Path
) -> None:
    run = MlflowClient(tracked_run.tracking_uri).get_run(run_id_of(tracked_run.run_dir))
    frame = mlflow_to_pandas(run.info.run_name, tracked_run.tracking_uri)  # by name; an id works too
    evaluations = read_scalars(tracked_run.run_dir)[EVAL_MEAN]
    curve = frame.loc[EVAL_MEAN]["value"]
    assert list(curve.index) == [STEPS_PER_EPOCH * epoch for epoch, _ in evaluations]
    assert list(curve) == pytest.approx([value for _, value in evaluations], rel=1e-6)
    out = tmp_path / "comparison.png"
    command = [executable("maze-compare-runs"), "--tracking-uri", tracked_run.tracking_uri, run.info.run_id]
    result = subprocess.run([*command, "--out", str(out)], env=job_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0
    with pytest.raises(RunDataError, match="no MLflow run with the id or name 'no-such-run'"):
        mlflow_to_pandas("no-such-run", tracked_run.tracking_uri)


def test_a_resumed_run_continues_the_same_mlflow_run(tmp_path: Path) -> None:
    first = maze_run(*TINY_PPO, "algorithm.n_epochs=1", "logger=mlflow", "hydra.run.dir=first", cwd=tmp_path)
    assert_success(first)
    resumed = maze_run(
        *TINY_PPO, "algorithm.n_epochs=2", "logger=mlflow", f"input_dir={tmp_path / 'first'}", "hydra.run.dir=resumed",
        cwd=tmp_path,
    )  # fmt: skip
    assert_success(resumed)
    run_id = run_id_of(tmp_path / "first")
    assert run_id_of(tmp_path / "resumed") == run_id
    client = MlflowClient(sqlite_uri(tmp_path))
    assert len(client.search_runs([client.get_experiment_by_name("maze").experiment_id])) == 1
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED"
    assert run.data.tags["maze.run_dir"] == str(tmp_path / "resumed")
    assert run.data.params["input_dir"] == ""  # parameters keep the values of the run's start
    assert [step for step, _ in metric_histories(client, run_id)[TRAIN_MEAN]] == [STEPS_PER_EPOCH, 2 * STEPS_PER_EPOCH]


def epochs_in_store(database: Path) -> set[int]:
    """The epochs whose metrics an MLflow SQLite store holds now (read-only; none while it does not exist)."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)) as store:
            return {int(value) for (value,) in store.execute("SELECT value FROM metrics WHERE key = 'epoch'")}
    except sqlite3.Error:  # no store yet, or its tables are still being created
        return set()


def test_the_first_epochs_metrics_reach_the_store_before_the_second_epoch_ends(tmp_path: Path) -> None:
    # epochs of about 3 s (100 updates): the tracking process connects (imports MLflow, creates the store) during the
    # job's start-up and the first epoch, and then writes each epoch's metrics as they come
    long_epochs = ("algorithm.n_epochs=2", "algorithm.epoch_length=100")
    command = [executable("maze-run"), *TINY_PPO, *long_epochs, "logger=mlflow", "hydra.run.dir=run"]
    job = subprocess.Popen(
        command, cwd=tmp_path, env=job_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output, epochs_ended, in_store = "", 0, set()
    for line in job.stdout:
        output += line
        if line.startswith("Time required for epoch"):
            epochs_ended += 1
            if epochs_ended == 2:  # the second epoch has just ended
                in_store = epochs_in_store(tmp_path / "outputs" / "mlflow.db")
    output += job.communicate(timeout=600)[0]
    assert job.returncode == 0, output[-3000:]
    assert epochs_ended == 2 and 1 in in_store, (epochs_ended, in_store, output[-300:])
    assert WARNING not in output


def test_an_unusable_store_gives_one_warning_and_the_training_finishes(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the store's directory should be")
    result = maze_run(
        *TINY_PPO, "algorithm.n_epochs=2", "logger=mlflow", f"logger.tracking_uri=sqlite:///{blocked}/mlflow.db",
        "hydra.run.dir=run", cwd=tmp_path,
    )  # fmt: skip
    assert_success(result)
    output = result.stdout + result.stderr
    assert output.count(WARNING) == 1, output[-3000:]
    assert json.loads((tmp_path / "run" / "training_summary.json").read_text())["epochs"] == 2
    assert [step for step, _ in read_scalars(tmp_path / "run")[TRAIN_MEAN]] == [1, 2]  # TensorBoard wrote on
    assert "Traceback" in (tmp_path / "run" / "tracking_mlflow.log").read_text()  # the details are in the log


def test_ctrl_c_ends_the_mlflow_run_as_killed_after_logging_what_was_trained(tmp_path: Path) -> None:
    # no early stop: the run goes on until Ctrl-C (or, should the signal get lost, 300 s, and the test fails)
    no_end = ("algorithm.n_epochs=100000", "algorithm.patience=0", "algorithm.max_seconds=300")
    command = [executable("maze-run"), *TINY_PPO, *no_end, "logger=mlflow", "hydra.run.dir=run"]
    job = subprocess.Popen(
        command, cwd=tmp_path, env=job_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,  # its own process group, which Ctrl-C in a terminal signals as a whole
        preexec_fn=default_ctrl_c,
    )  # fmt: skip
    output = ""
    for line in job.stdout:
        output += line
        if line.startswith("********** Iteration 3"):
            break
    os.killpg(job.pid, signal.SIGINT)  # the training and its tracking process, like Ctrl-C
    signalled_at = len(output)
    output += job.communicate(timeout=600)[0]
    # on failure: what the run printed right after the signal and at its end
    assert job.returncode == 130, output[signalled_at : signalled_at + 3000] + "\n...\n" + output[-1500:]
    assert WARNING not in output
    client = MlflowClient(sqlite_uri(tmp_path))
    run_id = run_id_of(tmp_path / "run")
    assert client.get_run(run_id).info.status == "KILLED"
    steps = [step for step, _ in metric_histories(client, run_id)[TRAIN_MEAN]]
    assert steps == [STEPS_PER_EPOCH * epoch for epoch, _ in read_scalars(tmp_path / "run")[TRAIN_MEAN]]
    assert len(steps) >= 3
    assert "state_dict.pt" in {artifact.path for artifact in client.list_artifacts(run_id)}
