"""The Cutting-2D tutorial's training commands run as documented (tiny budgets appended)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import assert_success, maze_run, scalar_series, seeds, training_summary

TINY_BUDGET = (
    "runner=dev",
    "algorithm.n_epochs=1",
    "algorithm.epoch_length=1",
    "algorithm.n_rollout_steps=20",
    "algorithm.rollout_evaluator.n_episodes=1",
)

DOCUMENTED_COMMANDS = {
    "part4-basic": (
        "env=tutorial_cutting_2d_basic wrappers=tutorial_cutting_2d_basic model=tutorial_cutting_2d_basic "
        "algorithm.reward_scaling=false"
    ),
    "part4-events": (
        "env=tutorial_cutting_2d_events wrappers=tutorial_cutting_2d_events model=tutorial_cutting_2d_events "
        "algorithm.reward_scaling=false"
    ),
    "part8b-struct": "env=tutorial_cutting_2d_struct wrappers=tutorial_cutting_2d model=tutorial_cutting_2d_struct",
    "part8d-masked": (
        "env=tutorial_cutting_2d_struct_masked wrappers=tutorial_cutting_2d model=tutorial_cutting_2d_struct_masked"
    ),
}
"""``maze-run -cn conf_train <command> algorithm=ppo`` as the tutorial writes it."""


@pytest.mark.parametrize("part", sorted(DOCUMENTED_COMMANDS))
def test_documented_tutorial_command_trains(part: str, tmp_path: Path) -> None:
    command = ("-cn", "conf_train", *DOCUMENTED_COMMANDS[part].split(), "algorithm=ppo")
    run_dir = tmp_path / "run"

    result = maze_run(*command, *TINY_BUDGET, *seeds(0), run_dir=run_dir)

    assert_success(result)
    assert training_summary(run_dir)["epochs"] == 1
    assert (run_dir / "state_dict.pt").is_file()


MASKED_BUDGET = ("algorithm.target_reward=-30", "algorithm.n_epochs=4")
"""The masked command's documented budget: stop at the optimum (-30: 30 raw pieces after the first), at most 4 epochs."""


def test_the_masked_command_stops_at_the_optimum_within_two_epochs(tmp_path: Path) -> None:
    """The tutorial's masked PPO run is optimal after one or two epochs of 20,480 env steps; its budget ends it there.

    Seeds 0-4 reach the optimum in the first epoch, seed 5 in the second (on one CPU; another
    rounds differently and may move a seed from one group to the other).
    """
    command = ("-cn", "conf_train", *DOCUMENTED_COMMANDS["part8d-masked"].split(), "algorithm=ppo", *MASKED_BUDGET)
    run_dir = tmp_path / "run"

    result = maze_run(*command, "runner=dev", *seeds(0), run_dir=run_dir)

    assert_success(result)
    summary = training_summary(run_dir)
    assert summary["epochs"] <= 2 and summary["env_steps"] == 20_480 * summary["epochs"], summary
    assert summary["best_eval_reward"] == -30
    assert "target reward -30 reached" in result.stdout


def test_the_flat_command_learns_valid_piece_selections_within_two_epochs(tmp_path: Path) -> None:
    """PPO with the documented command leaves the flat env's all-invalid start (-400) within two epochs.

    A random policy scores about -399: nearly every pick of the 200 inventory slots is empty (-2 per
    step, 200 steps). Seed 0 measured -378 and -307 for the two epochs' training episodes (with
    PPO's reward scaling, which the command turns off: -385 and -327). With the critic's value head
    at gain 1.0 and scaled rewards the same run stayed at -400: its random values over the raw piece
    sizes outweighed the scaled rewards and the rare valid picks got negative advantages.
    """
    command = ("-cn", "conf_train", *DOCUMENTED_COMMANDS["part4-basic"].split(), "algorithm=ppo")
    run_dir = tmp_path / "run"

    result = maze_run(
        *command,
        "runner=dev",
        "algorithm.n_epochs=2",
        "algorithm.rollout_evaluator.n_episodes=1",
        *seeds(0),
        run_dir=run_dir,
    )

    assert_success(result)
    train_rewards = scalar_series(run_dir, "train_BaseEnvEvents/reward/mean")
    assert len(train_rewards) == 2 and train_rewards[-1] >= -360, train_rewards
