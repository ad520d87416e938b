"""``maze-run -cn conf_train algorithm=sac``: discrete SAC learns CartPole; bad inputs stop with one error line.

Discrete SAC on CartPole-v1 with ``+experiment=cartpole_sac`` (500 random transitions, then one
gradient step per env step, evaluation of 10 deterministic episodes every 500 env steps):
seed 0 evaluates 77, 124, 208, 267 after 500 to 2,000 learning steps (random actions: about
22). The test stops at a mean of 250 and allows the whole 4,500-step budget (about 15 s).
With ``runner=local`` one worker process acts with a policy copy about two iterations stale
(``SACEvents.policy_lag``); seeds 0 and 1 reached 285 and 434 after 2,000 and 3,500 env steps
(not deterministic: the workers run asynchronously). Killing that worker stops the run with one
error line and leaves no process behind.
With ``algorithm.split_rollouts_into_transitions=false`` (whole rollouts of 4 steps in the buffer,
batches of 16 rollouts = 64 transitions, 4 gradient steps per rollout: again one per env step)
seeds 0, 1, 2 reached 250 after 2,000, 2,500 and 3,000 env steps.
Continuous SAC on Pendulum-v1 (3 seeds against stable-baselines3) is measured by
``nox -s bench -- --only sac``.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from cli_support import (
    assert_success,
    maze_run,
    maze_run_command,
    maze_run_env,
    scalar_series,
    seeds,
    training_state,
    training_summary,
)
from maze.train.core.checkpoints import find_checkpoint
from worker_processes import kill_a_worker

SAC_CARTPOLE = (
    "-cn",
    "conf_train",
    "env.name=CartPole-v1",
    "algorithm=sac",
    "model=vector_obs",
    "critic=template_state_action",
    "+experiment=cartpole_sac",
)
TARGET = 250


def test_discrete_sac_learns_cartpole(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = maze_run(*SAC_CARTPOLE, *seeds(0), f"algorithm.target_reward={TARGET}", run_dir=run_dir)
    assert_success(result)
    summary = training_summary(run_dir)
    assert summary["solved"], summary
    assert summary["best_eval_reward"] >= TARGET
    assert summary["env_steps"] <= 500 + 8 * 500
    assert "SACEvents" in result.stdout and "entropy_coef" in result.stdout


def test_discrete_sac_learns_cartpole_from_whole_rollouts(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    whole_rollouts = (
        "algorithm.split_rollouts_into_transitions=false",
        "algorithm.n_rollout_steps=4",
        "algorithm.batch_size=16",
        "algorithm.num_batches_per_iter=4",
        "algorithm.epoch_length=125",
    )
    result = maze_run(*SAC_CARTPOLE, *whole_rollouts, *seeds(0), f"algorithm.target_reward={TARGET}", run_dir=run_dir)
    assert_success(result)
    summary = training_summary(run_dir)
    assert summary["solved"] and summary["best_eval_reward"] >= TARGET, summary
    assert summary["env_steps"] <= 500 + 8 * 500
    sizes = scalar_series(run_dir, "train_SACEvents/buffer_size")
    # The last epoch's mean of the transitions stored after each of its 125 iterations (4 per rollout).
    assert sizes and sizes[-1] == summary["env_steps"] - 500 + 4 * 63, sizes


def test_local_runner_learns_cartpole_with_worker_processes(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = maze_run(*SAC_CARTPOLE, "runner=local", *seeds(0), f"algorithm.target_reward={TARGET}", run_dir=run_dir)
    assert_success(result)
    assert "Collecting transitions with 1 worker process, one env each" in result.stdout
    summary = training_summary(run_dir)
    assert summary["solved"], summary
    assert summary["best_eval_reward"] >= TARGET and summary["env_steps"] <= 500 + 8 * 500
    lags = scalar_series(run_dir, "train_SACEvents/policy_lag")
    assert lags and all(0 < lag <= 3 for lag in lags), lags  # acted with a slightly stale copy, never a newer one


def test_state_critic_is_rejected_with_one_error_line(tmp_path: Path) -> None:
    result = maze_run(
        "-cn",
        "conf_train",
        "env.name=Pendulum-v1",
        "algorithm=sac",
        "model=vector_obs",
        "critic=template_state",
        run_dir=tmp_path / "run",
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and "critic=template_state_action" in errors[0], result.stderr


def test_missing_demonstrations_are_named(tmp_path: Path) -> None:
    missing = tmp_path / "no_trajectories"
    result = maze_run(
        "-cn",
        "conf_train",
        "env.name=CartPole-v1",
        "algorithm=sacfd",
        "model=vector_obs",
        "critic=template_state_action",
        "runner=dev",
        f"runner.initial_demonstration_trajectories.input_data={missing}",
        run_dir=tmp_path / "run",
    )
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and str(missing) in errors[0] and "does not exist" in errors[0], result.stderr


def test_killed_run_resumes_with_its_critics_optimizers_and_entropy_coefficient(tmp_path: Path) -> None:
    """A run killed after its first checkpoint resumes from ``input_dir`` and trains on."""
    killed_dir = tmp_path / "killed"
    killed_dir.mkdir()
    process = subprocess.Popen(
        maze_run_command(*SAC_CARTPOLE, *seeds(1), "algorithm.n_epochs=0", "algorithm.patience=0", run_dir=killed_dir),
        cwd=tmp_path,
        env=maze_run_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 240
        while find_checkpoint(killed_dir) is None and time.monotonic() < deadline:
            assert process.poll() is None, "the run ended before its first checkpoint"
            time.sleep(0.2)
    finally:
        process.kill()
        process.wait()
    saved = training_state(killed_dir)
    assert saved["trainer"] == "SAC" and "sac" in saved["state_dicts"] and saved["epochs"] >= 1
    resumed_dir = tmp_path / "resumed"
    total = saved["epochs"] + 1  # n_epochs counts the total: one more epoch
    result = maze_run(
        *SAC_CARTPOLE, *seeds(1), f"algorithm.n_epochs={total}", f"input_dir={killed_dir}", run_dir=resumed_dir
    )
    assert_success(result)
    assert f"Resumed from input_dir {killed_dir}: epoch {saved['epochs']}, {saved['env_steps']} env steps (+" in (
        result.stdout
    )  # the refilled replay buffer's env steps count on top
    assert "optimizer state, sac" in result.stdout  # the Q networks, optimizers and entropy coefficient
    summary = training_summary(resumed_dir)
    assert summary["epochs"] == total and summary["env_steps"] > saved["env_steps"] + summary["run_env_steps"]


def test_killing_a_worker_of_the_local_runner_stops_the_run_with_one_error_and_no_orphans(tmp_path: Path) -> None:
    arguments = (*SAC_CARTPOLE, "runner=local", "algorithm.n_epochs=1000", "algorithm.rollout_evaluator=null")
    run = kill_a_worker(arguments, 1, tmp_path / "run", tmp_path / "out.log")
    assert run.returncode == 1, run.output[-3000:]
    errors = run.error_lines()
    assert len(errors) == 1 and "Actor 0 (process" in errors[0], run.output[-3000:]
    assert "died with signal SIGKILL; training stopped" in errors[0] and "Traceback" not in run.output
    assert not run.survivors(), "processes of the run outlived it"
