"""A ``maze-run`` training job stops at its env-step budget (``algorithm.max_env_steps``), not after n epochs."""

from __future__ import annotations

from pathlib import Path

from cli_support import SHORT_EPOCHS, assert_success, cartpole, maze_run, seeds, training_summary

EPOCH_STEPS = 2 * 32 * 8
"""Env steps of one short PPO epoch: two updates on 32-step rollouts of 8 envs."""


def test_max_env_steps_ends_training_at_the_first_epoch_end_past_the_budget(tmp_path: Path) -> None:
    budget = 2 * EPOCH_STEPS + 1
    result = maze_run(
        *cartpole(),
        "runner=dev",
        "runner.concurrency=8",
        *SHORT_EPOCHS,
        "algorithm.n_epochs=0",
        "algorithm.patience=0",
        "algorithm.target_reward=null",
        "algorithm.rollout_evaluator.n_episodes=2",
        f"++algorithm.max_env_steps={budget}",  # ++ works whether or not ppo.yaml lists the key
        *seeds(1),
        run_dir=tmp_path / "run",
    )

    assert_success(result)
    summary = training_summary(tmp_path / "run")
    assert (summary["epochs"], summary["env_steps"], summary["run_env_steps"]) == (3, 3 * EPOCH_STEPS, 3 * EPOCH_STEPS)
    assert summary["stop_reason"] == f"env-step budget reached ({3 * EPOCH_STEPS} >= algorithm.max_env_steps={budget})"
    assert f"Training stopped: env-step budget reached ({3 * EPOCH_STEPS} >= " in result.stdout
