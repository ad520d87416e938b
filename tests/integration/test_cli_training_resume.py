"""A training run killed mid-epoch resumes from its run directory with ``input_dir=``; A2C warm-starts from PPO."""

from __future__ import annotations

import queue
import signal
import subprocess
import time
from pathlib import Path

import pytest
from cli_support import (
    BEST_MODEL_LINE,
    EPOCH_START,
    EVAL_REWARD_MEAN,
    TrainingRun,
    assert_success,
    best_model_scores,
    cartpole,
    checkpoint_file,
    maze_run,
    scalar_series,
    seeds,
    snapshot,
    start_maze_run,
    training_state,
)
from maze.perception.serialization import load_state_dict_file

FAST_PPO = (*cartpole(), "+experiment=cartpole_ppo_fast", "algorithm.target_reward=null", *seeds(1))
"""The tuned PPO experiment (improves within a few short epochs), with no stop at a target."""

RANDOM_CARTPOLE = 22.0
"""Mean return of random actions on CartPole-v1."""


def start_and_kill_mid_epoch(run_dir: Path, improvements: int, timeout: float = 240) -> str:
    """Starts a 50-epoch run and kills it (SIGKILL) early in the epoch after its ``improvements``-th best model.

    Returns:
        What it printed.
    """
    process, lines = start_maze_run(*FAST_PPO, "algorithm.n_epochs=50", run_dir=run_dir)
    printed: list[str] = []
    seen = 0
    deadline = time.monotonic() + timeout
    try:
        while not (seen >= improvements and printed[-1].startswith(EPOCH_START)):
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"no {improvements} improvements within {timeout} s:\n" + "".join(printed[-40:]))
            assert line is not None, "the run ended before it was killed:\n" + "".join(printed[-40:])
            printed.append(line)
            seen += BEST_MODEL_LINE in line
        time.sleep(0.3)  # into the rollouts of the next epoch
    finally:
        process.kill()
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    return "".join(printed)


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory: pytest.TempPathFactory) -> TrainingRun:
    """A fast PPO run killed in the epoch after its second improvement (``result`` holds what it printed)."""
    run_dir = tmp_path_factory.mktemp("killed") / "run"
    printed = start_and_kill_mid_epoch(run_dir, improvements=2)
    return TrainingRun(run_dir, subprocess.CompletedProcess([], -signal.SIGKILL, printed, ""))


def test_killed_run_keeps_a_loadable_checkpoint(killed_run: TrainingRun) -> None:
    run_dir = killed_run.run_dir
    assert "Training stopped" not in killed_run.result.stdout
    state_dict = load_state_dict_file(run_dir / "state_dict.pt")
    assert state_dict and any(name.startswith("critic") for name in state_dict)
    load_state_dict_file(checkpoint_file(run_dir, "optimizer.pt"))
    state = training_state(run_dir)
    assert state["trainer"] == "PPO" and state["epochs"] >= 2
    # the saved best is at least the last announced one (output after it may be lost in the kill)
    assert state["best_reward"] >= best_model_scores(killed_run.result.stdout)[-1]
    # A kill that lands mid-save leaves at most its hidden staging entry (the checkpoints are complete); the next
    # resume from the directory deletes it.
    leftovers = [path.name for path in run_dir.iterdir() if path.name.startswith(".") and path.name != ".hydra"]
    assert all(name.endswith((".tmp", ".old")) for name in leftovers), leftovers
    assert len(leftovers) <= 1, leftovers


def test_two_consecutive_resumes_continue_epochs_env_steps_optimizer_and_best_score(
    killed_run: TrainingRun, tmp_path: Path
) -> None:
    """kill -9 mid-training, resume, resume the resumed run: counters, optimizer and best score carry over."""
    before = snapshot(killed_run.run_dir)
    killed = training_state(killed_run.run_dir)
    first, second = tmp_path / "resumed", tmp_path / "resumed_again"

    result = maze_run(
        *FAST_PPO, f"algorithm.n_epochs={killed['epochs'] + 1}", f"input_dir={killed_run.run_dir}", run_dir=first
    )

    assert_success(result)
    assert (
        f"Initialized the model from input_dir {killed_run.run_dir} with its latest weights (checkpoint-"
        f"{killed['epochs']}/last_state_dict.pt; the best model stays state_dict.pt)" in result.stdout
    )
    assert (
        f"Resumed from input_dir {killed_run.run_dir}: epoch {killed['epochs']}, {killed['env_steps']} env steps, "
        f"best score {killed['best_reward']:.3f}, optimizer state" in result.stdout
    )
    assert "Evaluating the model of input_dir before training" in result.stdout
    # The latest weights are trained ones, though they may score below the best model.
    assert scalar_series(first, EVAL_REWARD_MEAN)[0] > 5 * RANDOM_CARTPOLE
    assert result.stdout.count(EPOCH_START) == 1  # n_epochs counts the total: one more epoch
    assert f"{EPOCH_START} {killed['epochs']} **********" in result.stdout
    resumed = training_state(first)
    assert resumed["epochs"] == killed["epochs"] + 1 and resumed["env_steps"] > killed["env_steps"]
    assert resumed["best_reward"] >= killed["best_reward"]
    assert snapshot(killed_run.run_dir) == before

    result = maze_run(*FAST_PPO, f"algorithm.n_epochs={resumed['epochs'] + 1}", f"input_dir={first}", run_dir=second)

    assert_success(result)
    assert (
        f"Resumed from input_dir {first}: epoch {resumed['epochs']}, {resumed['env_steps']} env steps, "
        f"best score {resumed['best_reward']:.3f}, optimizer state" in result.stdout
    )
    again = training_state(second)
    assert again["epochs"] == resumed["epochs"] + 1 and again["env_steps"] > resumed["env_steps"]
    assert again["best_reward"] >= resumed["best_reward"]
    optimizer = load_state_dict_file(checkpoint_file(second, "optimizer.pt"))["optimizer"]
    resumed_optimizer = load_state_dict_file(checkpoint_file(first, "optimizer.pt"))["optimizer"]
    assert float(optimizer["steps"]["0"]) > float(resumed_optimizer["steps"]["0"])  # Adam's step count continued


def test_a2c_warm_starts_from_a_ppo_run(killed_run: TrainingRun, tmp_path: Path) -> None:
    """The PPO run's model (cartpole_ppo_fast: 64 units, critic with its own network) initializes A2C with that model config."""
    before = snapshot(killed_run.run_dir)
    run_dir = tmp_path / "a2c"
    result = maze_run(
        *cartpole("a2c"),
        "runner=dev",
        "model.model_builder.shared_embedding_keys=[]",
        "model.model_builder.modality_config.feature.block_params.hidden_units=[64]",
        "model.model_builder.modality_config.hidden.block_params.hidden_units=[64]",
        "algorithm.n_epochs=1",
        "algorithm.epoch_length=2",
        "algorithm.rollout_evaluator.n_episodes=4",
        f"input_dir={killed_run.run_dir}",
        *seeds(4),
        run_dir=run_dir,
    )

    assert_success(result)
    assert f"Initialized the model from input_dir {killed_run.run_dir}" in result.stdout
    assert scalar_series(run_dir, EVAL_REWARD_MEAN)[0] >= 5 * RANDOM_CARTPOLE
    assert (
        load_state_dict_file(run_dir / "state_dict.pt").keys()
        == load_state_dict_file(killed_run.run_dir / "state_dict.pt").keys()
    )
    assert snapshot(killed_run.run_dir) == before
