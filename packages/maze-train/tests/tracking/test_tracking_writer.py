"""The tracking writer on its own: run status, steps, the missing extra, names and parameters."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from maze.env.errors import ConfigurationError
from maze.env.log_stats.log_stats import LogStatsKey
from maze.train.tracking import TrackedRun, TrackingWriter, start_tracking
from maze.train.tracking.process import claim, prestart
from maze.train.tracking.run_info import flatten_params, metric_name
from mlflow.tracking import MlflowClient
from tracking_support import metric_histories

REWARD = LogStatsKey("BaseEnvEvents", "reward", "mean")


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


@pytest.mark.parametrize(
    ("error", "status"), [(None, "FINISHED"), (RuntimeError("boom"), "FAILED"), (KeyboardInterrupt(), "KILLED")]
)
def test_the_run_status_follows_the_exception_being_handled_at_close(
    store: str, tmp_path: Path, error: BaseException, status: str
) -> None:
    writer = tracked_writer(store, tmp_path, experiment=status)
    writer.write("train", 1, {REWARD: 1.5, LogStatsKey("BaseEnvEvents", "reward", "histogram"): [1, 2, 3]})
    writer.write("eval", 1, {REWARD: 2.5})
    if error is None:
        writer.close()
    else:
        try:
            raise error
        except BaseException:
            writer.close()  # what a runner's `finally` does while the error propagates
    assert not writer.warned
    assert finished_run(store, status) == (
        status,
        {
            "train_BaseEnvEvents/reward/mean": [(100, 1.5)],
            "eval_BaseEnvEvents/reward/mean": [(100, 2.5)],
            "epoch": [(100, 1.0)],
        },
    )


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
