"""Imitation then fine-tuning with ``maze-run``: record a heuristic, clone it (BC), roll the clone out, fine-tune with PPO.

One module-scoped recording of 200 heuristic LunarLander-v3 episodes (two worker
processes, a few seconds) feeds the acceptance run; the documented commands (scenarios
E5/E6) run as written on their own 3-episode recording.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import torch
from cli_support import (
    TrainingRun,
    assert_success,
    best_model_scores,
    checkpoint_file,
    console_table_rows,
    maze_run,
    maze_run_command,
    maze_run_env,
    scalar_series,
    seeds,
)
from maze.perception.serialization import load_state_dict_file
from test_cli_rollout import reward_rows, trajectory_files

LUNAR = ("env.name=LunarLander-v3",)
VECTOR_OBS = ("model=vector_obs", "wrappers=vector_obs")
HEURISTIC = (*LUNAR, "policy=lunar_lander_heuristics")
BC = ("-cn", "conf_train", *LUNAR, *VECTOR_OBS, "algorithm=bc")
ACCURACY = "eval_ImitationEvents/discrete_accuracy/0/action"


def record(run_dir: Path, *overrides: str) -> Path:
    result = maze_run(*HEURISTIC, *overrides, run_dir=run_dir)
    assert_success(result)
    return run_dir / "trajectory_data"


@pytest.fixture(scope="module")
def heuristic_rollout(tmp_path_factory: pytest.TempPathFactory) -> TrainingRun:
    """200 episodes of the LunarLander heuristic (to LunarLander-v3's own limit of 1,000 steps: the rollout default)."""
    run_dir = tmp_path_factory.mktemp("heuristic") / "run"
    result = maze_run(*HEURISTIC, "runner.n_episodes=200", "runner.n_processes=2", *seeds(0), run_dir=run_dir)
    assert_success(result)
    return TrainingRun(run_dir, result)


@pytest.fixture(scope="module")
def heuristic_data(heuristic_rollout: TrainingRun) -> Path:
    """The recorded trajectories of :func:`heuristic_rollout`."""
    assert len(trajectory_files(heuristic_rollout.run_dir)) == 200
    return heuristic_rollout.run_dir / "trajectory_data"


def test_the_heuristic_scores_as_the_readme_says(heuristic_rollout: TrainingRun) -> None:
    """README, "Imitation, then fine-tuning": the recording's mean return is about 265."""
    assert 240 <= reward_rows(heuristic_rollout.result.stdout)["mean"] <= 290


@pytest.fixture(scope="module")
def bc_run(heuristic_data: Path, tmp_path_factory: pytest.TempPathFactory) -> TrainingRun:
    """BC on the 200 episodes: 20 epochs, selected by the validation loss (no env rollouts during training)."""
    run_dir = tmp_path_factory.mktemp("bc") / "run"
    budget = ("algorithm.n_epochs=20", "algorithm.eval_every_k_iterations=null", "algorithm.n_eval_episodes=0")
    result = maze_run(
        *BC, "runner=dev", *budget, f"runner.dataset.input_data={heuristic_data}", *seeds(0), run_dir=run_dir
    )
    assert_success(result)
    return TrainingRun(run_dir, result)


@pytest.fixture(scope="module")
def bc_return(bc_run: TrainingRun, tmp_path_factory: pytest.TempPathFactory) -> float:
    """The cloned policy's mean return over 20 full episodes (``policy=torch_policy input_dir=...``)."""
    result = maze_run(
        *LUNAR,
        *VECTOR_OBS,
        "policy=torch_policy",
        f"input_dir={bc_run.run_dir}",
        "runner.n_episodes=20",
        "runner.n_processes=2",
        "runner.max_episode_steps=0",
        *seeds(5),
        run_dir=tmp_path_factory.mktemp("bc_rollout") / "run",
    )
    assert_success(result)
    rows = reward_rows(result.stdout)
    assert rows["episode_count"] == 20
    return rows["mean"]


def test_bc_clones_the_lunar_lander_heuristic(bc_run: TrainingRun, bc_return: float) -> None:
    accuracy = scalar_series(bc_run.run_dir, ACCURACY)
    assert len(accuracy) == 20 and max(accuracy) >= 0.9
    assert "Behavioural cloning on" in bc_run.result.stdout
    assert set(load_state_dict_file(bc_run.run_dir / "state_dict.pt")) == {"policy_0"}
    assert bc_return >= 200  # the heuristic scores about 280 here; random actions about -180


def test_ppo_fine_tuning_keeps_the_cloned_policy_during_critic_burn_in(
    bc_run: TrainingRun, bc_return: float, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    result = maze_run(
        "-cn",
        "conf_train",
        *LUNAR,
        *VECTOR_OBS,
        "critic=template_state",
        "algorithm=ppo",
        "algorithm.critic_burn_in_epochs=1",
        "algorithm.n_epochs=1",
        "algorithm.epoch_length=2",
        "algorithm.rollout_evaluator.n_episodes=20",
        "runner=dev",
        "runner.dump_interval=1",
        f"input_dir={bc_run.run_dir}",
        *seeds(6),
        run_dir=run_dir,
    )
    assert_success(result)
    assert "Initialized the policy from input_dir" in result.stdout
    cloned = load_state_dict_file(bc_run.run_dir / "state_dict.pt")["policy_0"]
    after_burn_in = load_state_dict_file(checkpoint_file(run_dir, "last_state_dict.pt"))["policy_0"]
    assert all(torch.equal(value, after_burn_in[name]) for name, value in cloned.items())
    first_evaluation = best_model_scores(result.stdout)[0]  # of the loaded model, before training
    assert abs(first_evaluation - bc_return) <= 0.15 * abs(bc_return)
    evaluations = scalar_series(run_dir, "eval_BaseEnvEvents/reward/mean")
    assert evaluations[-1] == pytest.approx(evaluations[0])  # same policy, same evaluation seeds


def test_the_documented_workflow_runs_as_written(tmp_path: Path) -> None:
    """Scenarios E5/E6: the seeds' four commands with LunarLander-v3 and their small budgets."""
    data = record(tmp_path / "collect", "runner.n_episodes=3")
    assert len(trajectory_files(data.parent)) == 3
    bc_dir = tmp_path / "bc"
    bc_command = (*BC, "algorithm.validation_percentage=50", "algorithm.n_epochs=2", "algorithm.device=cpu")
    result = maze_run(*bc_command, f"runner.dataset.input_data={data}", run_dir=bc_dir)
    assert_success(result)
    for prefix in ("train", "eval"):
        assert console_table_rows(result.stdout, prefix, "ImitationEvents", "discrete_accuracy") == [1, 2]
    assert len(best_model_scores(result.stdout)) >= 1 and (bc_dir / "state_dict.pt").is_file()
    rollout = maze_run(*LUNAR, *VECTOR_OBS, "policy=torch_policy", f"input_dir={bc_dir}", run_dir=tmp_path / "rollout")
    assert_success(rollout)
    assert reward_rows(rollout.stdout)["episode_count"] == 50  # 6 updates on 3 episodes: learning is not the point
    fine_tune = (*LUNAR, *VECTOR_OBS[:1], "critic=template_state", *VECTOR_OBS[1:], "algorithm=ppo")
    ppo_dir = tmp_path / "ppo"
    result = maze_run(
        "-cn",
        "conf_train",
        *fine_tune,
        "algorithm.critic_burn_in_epochs=1",
        "algorithm.n_epochs=2",
        f"input_dir={bc_dir}",
        run_dir=ppo_dir,
    )
    assert_success(result)
    assert "Initialized the policy from input_dir" in result.stdout and (ppo_dir / "training_summary.json").is_file()


def test_the_seeds_data_key_alias_and_relative_paths_from_the_launch_dir(tmp_path: Path) -> None:
    record(tmp_path / "collect", "runner.n_episodes=2", "runner.n_processes=2")
    command = maze_run_command(
        *BC,
        "runner=dev",
        "algorithm.n_epochs=1",
        "algorithm.n_eval_episodes=0",
        "runner.dataset.dir_or_file=collect/trajectory_data",
        run_dir=tmp_path / "bc",
    )
    result = subprocess.run(command, cwd=tmp_path, env=maze_run_env(), capture_output=True, text=True, timeout=300)
    assert_success(result)
    assert f"trajectory files in {tmp_path}/collect/trajectory_data" in result.stdout


def test_bc_clones_the_greedy_policy_of_the_structured_cutting_env(tmp_path: Path) -> None:
    env = ("env=tutorial_cutting_2d_struct", "wrappers=tutorial_cutting_2d_struct")
    collect = maze_run(
        *env,
        "policy=tutorial_cutting_2d_greedy_policy",
        "runner.n_episodes=20",
        "runner.n_processes=2",
        "runner.max_episode_steps=0",
        *seeds(0),
        run_dir=tmp_path / "collect",
    )
    assert_success(collect)
    greedy_return = reward_rows(collect.stdout)["mean"]
    bc_dir = tmp_path / "bc"
    result = maze_run(
        "-cn",
        "conf_train",
        *env,
        "model=tutorial_cutting_2d_struct",
        "algorithm=bc",
        "algorithm.n_epochs=15",
        "algorithm.optimizer.lr=0.003",  # passes the plateau of cut_rotation (0.83) within about 6 epochs
        "algorithm.eval_every_k_iterations=null",
        "algorithm.n_eval_episodes=4",
        "runner=dev",
        f"runner.dataset.input_data={tmp_path / 'collect' / 'trajectory_data'}",
        *seeds(0),
        run_dir=bc_dir,
    )
    assert_success(result)
    assert "7200 recorded sub-steps of 20 trajectory files" in result.stdout  # 20 episodes x 180 steps x 2 sub-steps
    for head in ("0/piece_idx", "1/cut_rotation", "1/cut_order"):
        assert scalar_series(bc_dir, f"eval_ImitationEvents/discrete_accuracy/{head}")[-1] >= 0.95, head
    assert max(scalar_series(bc_dir, "eval_BaseEnvEvents/reward/mean")) == pytest.approx(greedy_return)


BAD_INPUTS = {
    "missing": ("runner.dataset.input_data={tmp}/no_such_dir", "trajectory data {tmp}/no_such_dir does not exist"),
    "empty": ("runner.dataset.input_data={tmp}", "no trajectory files (*.traj.npz|*.pkl) found in ['{tmp}']"),
    "other-env": (
        "runner.dataset.input_data={data} env.name=CartPole-v1",
        "the dataset does not fit the configured env",
    ),
    "unsupported-actions": (
        "runner.dataset.input_data={data} env._target_=text_action_env.make_env ~env.name wrappers=no_wrappers",
        "behavioural cloning cannot train action head 'action' of sub-step 0: its space Text(",
    ),
}

TEXT_ACTION_ENV = '''
"""CartPole commanded by text ("left"/"right"): a Text action space, which BC cannot train."""
import gymnasium as gym
from gymnasium import spaces
from maze.env import GymMazeEnv


class TextActions(gym.ActionWrapper):
    def __init__(self, env):
        super().__init__(env)
        self.action_space = spaces.Text(max_length=5)

    def action(self, action):
        return int(action == "right")


def make_env(render_mode=None):
    return GymMazeEnv(TextActions(gym.make("CartPole-v1", render_mode=render_mode)))
'''


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_fails_with_one_clear_message(case: str, heuristic_data: Path, tmp_path: Path) -> None:
    (tmp_path / "text_action_env.py").write_text(TEXT_ACTION_ENV)
    override, message = (text.format(tmp=tmp_path / "empty", data=heuristic_data) for text in BAD_INPUTS[case])
    (tmp_path / "empty").mkdir()
    command = maze_run_command(*BC, "runner=dev", *override.split(), run_dir=tmp_path / "run")
    env = {**maze_run_env(), "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and message in errors[0], result.stderr
    assert "Traceback" not in result.stderr
