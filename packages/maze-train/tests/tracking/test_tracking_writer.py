"""The tracking writer on its own: run status, steps, a failing store, the missing extra, names and parameters."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Optional

import pytest
from maze.env.errors import ConfigurationError
from maze.env.log_stats.log_stats import LogStatsKey
from maze.train.tracking import TrackedRun, TrackingWriter, start_tracking
from maze.train.tracking.process import claim, prestart
from maze.train.tracking.protocol import read_tracked_run_id
from maze.train.tracking.run_info import flatten_params, metric_name
from mlflow.tracking import MlflowClient
from tracking_support import WARNING, metric_histories

REWARD = LogStatsKey("BaseEnvEvents", "reward", "mean")
TRAIN_REWARD = "train_BaseEnvEvents/reward/mean"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A SQLite store shared by the tests of this module (each uses its own experiment)."""
    return f"sqlite:///{tmp_path_factory.mktemp('store') / 'mlflow.db'}"


def tracked_writer(store: str, run_dir: Path, experiment: str) -> TrackingWriter:
    """A writer into ``experiment`` of ``store`` whose tracking step is 100 x the log step."""
    run = TrackedRun("a run", str(run_dir), {"algorithm.lr": "0.1"}, {"algorithm": "PPO"})
    settings = {"tracking_uri": store, "experiment_name": experiment}
    return TrackingWriter("mlflow", settings, run, step_of=lambda log_step: 100 * log_step)


def finished_run(store: str, experiment: str) -> tuple[str, dict]:
    client = MlflowClient(store)
    (run,) = client.search_runs([client.get_experiment_by_name(experiment).experiment_id])
    return run.info.status, metric_histories(client, run.info.run_id)


def close_while(writer: TrackingWriter, error: Optional[BaseException]) -> None:
    """Closes ``writer`` as a runner's ``finally`` does: while ``error`` propagates (None: after a clean end)."""
    if error is None:
        writer.close()
        return
    try:
        raise error
    except BaseException:
        writer.close()


@pytest.fixture(scope="module")
def empty_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database file of a new SQLite store (its tables created), for tests to copy."""
    path = tmp_path_factory.mktemp("empty_store") / "mlflow.db"
    MlflowClient(f"sqlite:///{path}").search_experiments()
    return path


def refusing_store(empty_store: Path, directory: Path, table: str, when: str = "1") -> str:
    """A new SQLite store in ``directory`` whose ``table`` refuses rows as a full disk would.

    Args:
        empty_store: The database file to copy.
        directory: Where the store goes.
        table: The table that refuses rows.
        when: Which rows it refuses (SQL on ``NEW``; default: all).
    """
    path = Path(shutil.copy(empty_store, directory / "mlflow.db"))
    with contextlib.closing(sqlite3.connect(path)) as database:
        database.execute(
            f"CREATE TRIGGER refuse BEFORE INSERT ON {table} WHEN {when} "
            "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
        )
        database.commit()
    return f"sqlite:///{path}"


@pytest.mark.parametrize(
    ("error", "status"), [(None, "FINISHED"), (RuntimeError("boom"), "FAILED"), (KeyboardInterrupt(), "KILLED")]
)
def test_the_run_status_follows_the_exception_being_handled_at_close(
    store: str, tmp_path: Path, error: BaseException, status: str
) -> None:
    writer = tracked_writer(store, tmp_path, experiment=status)
    writer.write("train", 1, {REWARD: 1.5, LogStatsKey("BaseEnvEvents", "reward", "histogram"): [1, 2, 3]})
    writer.write("eval", 1, {REWARD: 2.5})
    close_while(writer, error)
    assert not writer.warned
    assert finished_run(store, status) == (
        status,
        {
            "train_BaseEnvEvents/reward/mean": [(100, 1.5)],
            "eval_BaseEnvEvents/reward/mean": [(100, 2.5)],
            "epoch": [(100, 1.0)],
        },
    )


@pytest.mark.parametrize(("error", "status"), [(None, "FAILED"), (KeyboardInterrupt(), "KILLED")])
def test_a_store_that_fills_mid_run_ends_the_run_failed_or_killed_with_one_warning(
    empty_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], error: Optional[BaseException], status: str
) -> None:
    store = refusing_store(empty_store, tmp_path, "metrics", when="NEW.step >= 200")  # full from the second epoch on
    (tmp_path / "run").mkdir()
    writer = tracked_writer(store, tmp_path / "run", experiment="full")
    for epoch in (1, 2, 3):
        writer.write("train", epoch, {REWARD: epoch + 0.5})
    close_while(writer, error)
    assert writer.warned
    warnings = capsys.readouterr().out
    assert warnings.count(WARNING) == 1 and "database or disk is full" in warnings, warnings
    assert finished_run(store, "full") == (status, {TRAIN_REWARD: [(100, 1.5)], "epoch": [(100, 1.0)]})


def test_the_tracked_run_id_is_recorded_before_the_first_upload(empty_store: Path, tmp_path: Path) -> None:
    store = refusing_store(empty_store, tmp_path, "params")  # the first upload (the parameters) fails
    (tmp_path / "run").mkdir()
    writer = tracked_writer(store, tmp_path / "run", experiment="no-parameters")
    writer.write("train", 1, {REWARD: 1.5})
    writer.close()
    assert writer.warned
    client = MlflowClient(store)
    (run,) = client.search_runs([client.get_experiment_by_name("no-parameters").experiment_id])
    assert read_tracked_run_id(tmp_path / "run", "mlflow") == run.info.run_id  # a resume continues this run
    assert (run.info.status, run.data.params) == ("FAILED", {})


def test_the_writer_of_a_run_claims_the_process_prestarted_for_it_and_lets_others_go(
    store: str, tmp_path: Path
) -> None:
    settings = {"tracking_uri": store, "experiment_name": "prestart"}
    prestarted = prestart("mlflow", settings, tmp_path)
    assert claim("mlflow", settings, tmp_path) is prestarted
    (tmp_path / "elsewhere").mkdir()
    elsewhere = prestart("mlflow", settings, tmp_path / "elsewhere")
    claimed = claim("mlflow", settings, tmp_path)  # another run directory: a new process, the other one ends
    assert claimed is not elsewhere
    assert elsewhere.popen.wait(timeout=120) == 0
    for process in (prestarted, claimed):  # connected, but never started a run
        assert process.finish({"op": "finish", "status": "finished"}, timeout=120) == ([], None)
    client = MlflowClient(store)
    assert client.search_runs([client.get_experiment_by_name("prestart").experiment_id]) == []


def test_a_missing_extra_is_one_configuration_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)  # as if wandb were not installed
    with pytest.raises(ConfigurationError, match=r"pip install .*packages/maze-train\[wandb\]"):
        start_tracking(
            {"logger": {"wandb": True}}, tmp_path, trainer="PPO", runner="PPORunner", step_of=int, artifacts=[],
            summary_file="training_summary.json",
        )  # fmt: skip
    assert start_tracking(
        {"logger": {}}, tmp_path, trainer="PPO", runner="PPORunner", step_of=int, artifacts=[],
        summary_file="training_summary.json",
    ) == []  # fmt: skip


def test_metric_names_are_the_tensorboard_tags_with_what_mlflow_refuses_replaced() -> None:
    assert metric_name("train", REWARD) == "train_BaseEnvEvents/reward/mean"
    assert metric_name(None, LogStatsKey("Kpis", "cost", "sum", ("a[0]", "b,c"))) == "Kpis/cost/sum/a_0_/b_c"


def test_params_are_the_config_flattened_to_dotted_keys() -> None:
    config = {"algorithm": {"lr": 0.001, "layers": [64, 64], "device": "cpu", "target": None}, "wrappers": {}}
    assert flatten_params(config) == {
        "algorithm.lr": "0.001", "algorithm.layers": "[64, 64]", "algorithm.device": "cpu", "algorithm.target": "null",
        "wrappers": "{}",
    }  # fmt: skip
    assert flatten_params({"text": "x" * 7000})["text"].endswith("...")
