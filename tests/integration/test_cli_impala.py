"""IMPALA through ``maze-run``: CartPole with 2 actor processes, dev runner and resume, Cutting-2D, a killed actor.

Budgets (2 shared cores): the CartPole run with ``+experiment=cartpole_impala_fast`` (2 actor
processes of 4 envs, epochs of 4,000 env steps) stops at an evaluation mean of 300 (random
actions: ~22); it took 12-21 s on 2 shared cores. The 475 target for 3
seeds is measured by ``nox -s bench -- --only impala``. The four tests take about a minute."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import (
    CUTTING_ENV,
    EPOCH_START,
    EVAL_REWARD_MEAN,
    assert_success,
    cartpole,
    checkpoint_file,
    maze_run,
    scalar_series,
    seeds,
    training_state,
    training_summary,
)
from test_cli_training_learning import KPI, random_valid_kpis
from worker_processes import kill_a_worker

SUITE_TARGET = 300
LOCAL = ("runner=local", "algorithm.num_actors=2")
DEV_BUDGET = (
    "runner=dev",
    "algorithm.n_epochs=2",
    "algorithm.epoch_length=2",
    "algorithm.n_rollout_steps=20",
    "algorithm.num_actors=2",
    "algorithm.actors_batch_size=2",
    "algorithm.rollout_evaluator.n_episodes=2",
)


@pytest.mark.slow
def test_local_runner_with_two_actor_processes_learns_cartpole(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = maze_run(
        *cartpole("impala"),
        *LOCAL,
        "+experiment=cartpole_impala_fast",
        f"algorithm.target_reward={SUITE_TARGET}",
        "algorithm.n_epochs=30",
        *seeds(0),
        run_dir=run_dir,
        timeout=600,
    )

    assert_success(result)
    assert "Training with 2 actors of 4 env(s) each (SubprocDistributedActors)" in result.stdout
    summary = training_summary(run_dir)
    assert summary["solved"] is True and summary["best_eval_reward"] >= SUITE_TARGET, summary
    lags = scalar_series(run_dir, "train_ImpalaEvents/policy_lag")
    # An output waits behind the 2 queued outputs and the other actor's blocked one (one update each), plus
    # the updates made while it was rolled out: a few versions stale on average, never negative.
    assert all(0 <= lag <= 8 for lag in lags), lags
    assert 0 < scalar_series(run_dir, "train_ImpalaEvents/vtrace_rho_mean")[-1] < 2


def test_dev_runner_trains_and_a_run_resumes_from_input_dir(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    result = maze_run(*cartpole("impala"), *DEV_BUDGET, *seeds(0), run_dir=first)

    assert_success(result)
    assert "Training with 2 actors of 1 env(s) each (SequentialDistributedActors)" in result.stdout
    state = training_state(first)
    assert (state["epochs"], state["env_steps"], state["trainer"]) == (2, 2 * 2 * 2 * 20, "IMPALA")
    assert (first / "state_dict.pt").is_file() and checkpoint_file(first, "optimizer.pt").is_file()
    assert scalar_series(first, "train_ImpalaEvents/policy_lag") == [0, 0]
    assert len(scalar_series(first, EVAL_REWARD_MEAN)) == 2

    result = maze_run(
        *cartpole("impala"), *DEV_BUDGET, "algorithm.n_epochs=3", f"input_dir={first}", *seeds(1), run_dir=second
    )

    assert_success(result)
    assert f"Resumed from input_dir {first}: epoch 2, 160 env steps" in result.stdout
    assert result.stdout.count(EPOCH_START) == 1
    resumed = training_state(second)
    assert (resumed["epochs"], resumed["env_steps"]) == (3, 240)


@pytest.mark.slow
def test_impala_trains_the_masked_structured_cutting_env(tmp_path: Path) -> None:
    """Up to 5 epochs of 10 updates of 8 actor rollouts of 20 steps: an evaluation beats random valid actions.

    The best evaluation counts (the runner keeps the best model): with seeds 0-5 one reaches the optimum
    within 3 epochs, but a later evaluation may fall back (seed 2's fifth) or an earlier one be level with
    random play (seed 0's first two).
    """
    run_dir = tmp_path / "run"
    result = maze_run(
        "-cn",
        "conf_train",
        *CUTTING_ENV,
        "model=tutorial_cutting_2d_struct_masked",
        "algorithm=impala",
        "runner=dev",
        "algorithm.n_epochs=5",
        "algorithm.epoch_length=10",
        "algorithm.n_rollout_steps=20",
        "algorithm.lr=0.001",
        *seeds(0),
        run_dir=run_dir,
    )

    assert_success(result)
    evaluations = scalar_series(run_dir, f"eval_BaseEnvEvents/kpi/mean/{KPI}")
    baseline = random_valid_kpis(n_episodes=16)
    assert len(evaluations) == 5 and min(evaluations) < min(baseline), (evaluations, min(baseline))


def test_killing_an_actor_stops_the_run_with_one_error_and_no_orphans(tmp_path: Path) -> None:
    arguments = (*cartpole("impala"), *LOCAL, "algorithm.n_epochs=1000", "algorithm.rollout_evaluator=null")
    run = kill_a_worker(arguments, 2, tmp_path / "run", tmp_path / "out.log")
    assert run.returncode == 1, run.output[-3000:]
    errors = run.error_lines()
    assert len(errors) == 1 and "died with signal SIGKILL; training stopped" in errors[0], run.output[-3000:]
    assert "Traceback" not in run.output
    assert not run.survivors(), "processes of the run outlived it"
