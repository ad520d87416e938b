"""``maze-run -cn conf_train algorithm=es``: the documented command (banners, ESEvents), CartPole solved, ES the default."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from cli_support import (
    BEST_MODEL_LINE,
    EVAL_REWARD_MEAN,
    assert_success,
    console_table_rows,
    maze_run,
    scalar_series,
    seeds,
    training_summary,
)

ES_COMMAND = ("-cn", "conf_train", "env.name=CartPole-v1", "algorithm=es", "model=vector_obs")
SMALL_NOISE_TABLE = "runner.shared_noise_table_size=2000000"
"""8 MB instead of the documented 400 MB default."""
BANNERS = ("Init Shared Noise Table", "Trainer Setup", "Run Trainer")
ES_EVENTS = ("policy_grad_norm", "policy_l2_norm", "update_ratio", "total_episode_count", "total_step_count")
SOLVE_EPOCHS = 60
"""Iteration cap of the learning test: seeds 0-7 needed 10-24 with this table (the benchmark allows 100)."""


def test_documented_es_command_prints_the_banners_and_es_events(tmp_path: Path) -> None:
    run_dir = tmp_path / "es"
    result = maze_run(
        *ES_COMMAND, "algorithm.n_epochs=3", SMALL_NOISE_TABLE, "runner.n_train_workers=2", *seeds(0), run_dir=run_dir
    )
    assert_success(result)
    positions = [result.stdout.index(f"********** {banner} **********") for banner in BANNERS]
    assert positions == sorted(positions)
    for event in ES_EVENTS:
        assert console_table_rows(result.stdout, "train", "ESEvents", event) == [1, 2, 3], event
    assert console_table_rows(result.stdout, "eval", "BaseEnvEvents", "reward")[-1] == 3
    assert BEST_MODEL_LINE in result.stdout
    assert len(scalar_series(run_dir, "train_ESEvents/update_ratio")) == 3
    assert (run_dir / "state_dict.pt").is_file() and training_summary(run_dir)["epochs"] == 3


def test_es_is_the_default_algorithm_of_conf_train(tmp_path: Path) -> None:
    run_dir = tmp_path / "default"
    result = maze_run("-cn", "conf_train", "runner=dev", "algorithm.n_epochs=1", SMALL_NOISE_TABLE, run_dir=run_dir)
    assert_success(result)
    assert "********** Init Shared Noise Table **********" in result.stdout
    choices = yaml.safe_load((run_dir / ".hydra" / "hydra.yaml").read_text())["hydra"]["runtime"]["choices"]
    assert (choices["algorithm"], choices["algorithm_runner"], choices["runner"]) == ("es", "es", "dev")
    assert training_summary(run_dir)["epochs"] == 1


@pytest.mark.slow
def test_es_solves_cartpole(tmp_path: Path) -> None:
    run_dir = tmp_path / "solve"
    result = maze_run(
        *ES_COMMAND,
        "runner=dev",
        f"algorithm.n_epochs={SOLVE_EPOCHS}",
        "algorithm.target_reward=475",
        SMALL_NOISE_TABLE,
        *seeds(0),
        run_dir=run_dir,
    )
    assert_success(result)
    summary = training_summary(run_dir)
    assert summary["solved"] and summary["best_eval_reward"] >= 475, summary
    assert max(scalar_series(run_dir, EVAL_REWARD_MEAN)) >= 475
