"""A real ``maze-run`` training job stopped by SIGKILL or SIGTERM after an epoch that was not its best.

kill -9 leaves the run directory resumable with the latest weights (``checkpoint-<n>/last_state_dict.pt``),
which a resume continues from, not the older best model (``state_dict.pt``); SIGTERM ends the
job like Ctrl-C, with one message naming what was saved and how to resume.
"""

from __future__ import annotations

import queue
import signal
import time
from pathlib import Path

import pytest
import torch
from cli_support import (
    BEST_MODEL_LINE,
    EPOCH_START,
    SHORT_EPOCHS,
    assert_success,
    cartpole,
    checkpoint_file,
    maze_run,
    seeds,
    start_maze_run,
    training_state,
    training_summary,
)
from maze.perception.serialization import load_state_dict_file

SLOW_PPO = (
    *cartpole(),
    "runner=dev",
    *SHORT_EPOCHS,
    "algorithm.lr=1e-6",
    "algorithm.patience=0",
    "algorithm.target_reward=null",
    "algorithm.rollout_evaluator.n_episodes=2",
    *seeds(3),
)
"""PPO with a learning rate so small that the deterministic evaluation soon scores an epoch no better than the best."""

EPOCH_END = "Time required for epoch"
"""Printed after an epoch's resumable state was saved."""


def stop_after_an_epoch_that_is_not_the_best(run_dir: Path, stop: signal.Signals, timeout: float = 120) -> str:
    """Starts a 100-epoch run and sends it ``stop`` right after the first epoch end without a new best model.

    Returns:
        What it printed (stdout and stderr).
    """
    process, lines = start_maze_run(*SLOW_PPO, "algorithm.n_epochs=100", run_dir=run_dir)
    printed: list[str] = []
    improved, deadline = True, time.monotonic() + timeout
    try:
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail("no epoch without a new best model in time:\n" + "".join(printed[-40:]))
            assert line is not None, "the run ended before it was stopped:\n" + "".join(printed[-40:])
            printed.append(line)
            if line.startswith(EPOCH_START):
                improved = False
            elif BEST_MODEL_LINE in line:
                improved = True
            elif line.startswith(EPOCH_END) and not improved:
                break
        process.send_signal(stop)
        process.wait(timeout=60)
    finally:
        process.kill()
        process.wait(timeout=30)
    while (line := lines.get(timeout=30)) is not None:
        printed.append(line)
    expected = -signal.SIGKILL if stop == signal.SIGKILL else 128 + stop
    assert process.returncode == expected, f"exit status {process.returncode}, output:\n" + "".join(printed[-60:])
    return "".join(printed)


def same(state: dict, other: dict) -> bool:
    """Two (nested) state dicts hold the same keys and equal tensors."""
    return state.keys() == other.keys() and all(
        same(value, other[key]) if isinstance(value, dict) else torch.equal(value, other[key])
        for key, value in state.items()
    )


def test_a_run_killed_after_an_epoch_that_was_not_its_best_resumes_from_the_latest_weights(tmp_path: Path) -> None:
    killed = tmp_path / "killed"
    stop_after_an_epoch_that_is_not_the_best(killed, signal.SIGKILL)
    state = training_state(killed)
    latest = load_state_dict_file(checkpoint_file(killed, "last_state_dict.pt"))
    best = load_state_dict_file(killed / "state_dict.pt")
    assert state["last_weights"] == "last_state_dict.pt" and state["epochs"] >= 2
    assert not same(latest, best)  # the best model is an older epoch's

    resumed = tmp_path / "resumed"  # n_epochs counts the total: nothing left to train, the state is written again
    result = maze_run(*SLOW_PPO, f"algorithm.n_epochs={state['epochs']}", f"input_dir={killed}", run_dir=resumed)

    assert_success(result)
    assert (
        f"Initialized the model from input_dir {killed} with its latest weights (checkpoint-{state['epochs']}/"
        "last_state_dict.pt" in result.stdout
    )
    assert f"nothing to train: the run already has {state['epochs']} epochs >= n_epochs={state['epochs']}" in (
        result.stdout
    )
    resumed_policy = load_state_dict_file(checkpoint_file(resumed, "last_state_dict.pt"))
    assert same(resumed_policy, latest) and not same(resumed_policy, best)
    assert training_summary(resumed)["epochs"] == state["epochs"]
    assert training_state(resumed)["env_steps"] == state["env_steps"]


def test_sigterm_ends_a_training_run_like_ctrl_c_naming_what_was_saved_and_how_to_resume(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    printed = stop_after_an_epoch_that_is_not_the_best(run_dir, signal.SIGTERM)
    epochs = training_state(run_dir)["epochs"]
    assert (
        f"Interrupted (SIGTERM). The outputs so far are in {run_dir}: the best model state_dict.pt and the state "
        f"after {epochs} epochs (checkpoint-{epochs}: last_state_dict.pt, optimizer.pt, training_state.yaml); resume "
        f"training with input_dir={run_dir}"
    ) in printed
    assert printed.count("Interrupted (") == 1 and "Traceback" not in printed
    assert training_summary(run_dir)["stop_reason"] == "interrupted (Terminated)"
    assert not list(run_dir.glob("*.tmp*"))
