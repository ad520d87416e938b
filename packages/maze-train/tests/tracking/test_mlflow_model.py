"""``logger=mlflow`` records the seeds a run drew and logs its policy as a model MLflow can load and serve."""

from __future__ import annotations

import json
from pathlib import Path

import mlflow
import numpy as np
import pandas as pd
import pytest
from mlflow.tracking import MlflowClient
from tracking_support import TINY_PPO, assert_success, maze_run, sqlite_uri

UNSEEDED = tuple(argument for argument in TINY_PPO if not argument.startswith("seeding."))
"""The tiny PPO run without seeds: maze draws them."""


@pytest.fixture(scope="module")
def unseeded_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, Path]:
    """(tracking URI, MLflow run id, run directory) of one MLflow-tracked PPO epoch with drawn seeds."""
    cwd = tmp_path_factory.mktemp("unseeded")
    result = maze_run(*UNSEEDED, "algorithm.n_epochs=1", "logger=mlflow", "hydra.run.dir=run", cwd=cwd)
    assert_success(result)
    run_id = json.loads((cwd / "run" / "tracking_mlflow.json").read_text())["run_id"]
    return sqlite_uri(cwd), run_id, cwd / "run"


def test_the_drawn_seeds_are_recorded(unseeded_run: tuple[str, str, Path]) -> None:
    uri, run_id, _ = unseeded_run
    params = MlflowClient(uri).get_run(run_id).data.params
    for key in ("seeding.env_base_seed", "seeding.agent_base_seed"):
        assert params[key].isdigit(), (key, params[key])  # not "null": the seed the run drew


def test_the_policy_is_a_loadable_pyfunc_model_of_the_run(unseeded_run: tuple[str, str, Path]) -> None:
    from maze.perception.checkpoint import SerializedTorchPolicy

    uri, run_id, run_dir = unseeded_run
    mlflow.set_tracking_uri(uri)
    model = mlflow.pyfunc.load_model(f"runs:/{run_id}/policy")
    observations = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    actions = model.predict(pd.DataFrame({"observation": list(observations)}))
    assert list(actions.columns) == ["action"] and len(actions) == 5
    policy = SerializedTorchPolicy(
        None, run_dir / "state_dict.pt", run_dir / "spaces_config.yaml", model_config_file=run_dir / "model_config.yaml"
    )
    expected = policy.compute_action({"observation": observations}, deterministic=True)["action"]
    assert actions["action"].tolist() == expected.tolist()  # the run's best policy, deterministic
    assert model.predict({"observation": observations})["action"].tolist() == expected.tolist()
