"""``maze-run`` rollouts end to end: parallel, sequential and auto runners, outputs, rendering, failing workers."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
from pathlib import Path

from cli_support import assert_success, maze_run, maze_run_command, maze_run_env

UUID_FILE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\.traj\.npz")


def reward_rows(output: str) -> dict[str, float]:
    """The ``rollout_stats BaseEnvEvents reward <name>`` rows of the console table."""
    rows = {}
    for line in output.splitlines():
        cells = line.split("|")
        if len(cells) == 3 and cells[1].split()[:3] == ["rollout_stats", "BaseEnvEvents", "reward"]:
            rows[cells[1].split()[3]] = float(cells[2])
    return rows


def trajectory_files(run_dir: Path) -> list[Path]:
    return sorted((run_dir / "trajectory_data").glob("*.traj.npz"))


def test_parallel_rollout_of_the_documented_command(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = maze_run(
        "env=gym_env",
        "env.name=CartPole-v1",
        "runner.n_processes=3",
        "runner.n_episodes=100",
        "runner.max_episode_steps=10",
        run_dir=run_dir,
    )
    assert_success(result)
    rows = reward_rows(result.stdout)
    assert rows["episode_count"] == 100.0 and rows["max"] <= 10.0
    assert list(rows) == [
        "median_step_count",
        "mean_step_count",
        "total_step_count",
        "total_episode_count",
        "episode_count",
        "std",
        "mean",
        "min",
        "max",
    ]
    files = trajectory_files(run_dir)
    assert len(files) == 100 and all(UUID_FILE.fullmatch(path.name) for path in files)
    event_log = run_dir / "event_logs" / "BaseEnvEvents.reward.tsv"
    assert len(event_log.read_text().splitlines()) == 1 + rows["total_step_count"]
    assert (run_dir / ".hydra" / "config.yaml").is_file()
    assert "episode_count         |             100.000" in (run_dir / "maze_cli.log").read_text()


def test_cheat_sheet_rollout_uses_the_defaults(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = maze_run("-cn", "conf_rollout", "env.name=CartPole-v1", "policy=random_policy", run_dir=run_dir)
    assert_success(result)
    assert reward_rows(result.stdout)["episode_count"] == 50.0
    assert len(trajectory_files(run_dir)) == 50 and list((run_dir / "event_logs").iterdir())


def test_sequential_rollout_renders_headless(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = maze_run(
        "env=gym_env",
        "env.name=CartPole-v1",
        "runner=sequential",
        "runner.n_episodes=2",
        "runner.max_episode_steps=10",
        "runner.render=true",
        run_dir=run_dir,
    )
    assert_success(result)
    rows = reward_rows(result.stdout)
    assert rows["episode_count"] == 2.0 and rows["max"] <= 10.0
    # CartPole draws its rgb_array frames with pygame; without it the rollout says so once and goes on
    drew = importlib.util.find_spec("pygame") is not None
    assert ("runner.render=true: cannot draw this env" in result.stdout) is not drew


def test_greedy_cutting_policy_rolls_out_the_structured_env_in_workers(tmp_path: Path) -> None:
    result = maze_run(
        "env=tutorial_cutting_2d_struct_masked",
        "wrappers=tutorial_cutting_2d",
        "policy=tutorial_cutting_2d_greedy_policy",
        "runner=parallel",
        "runner.n_processes=2",
        "runner.n_episodes=2",
        "runner.record_trajectory=false",
        run_dir=tmp_path / "run",
    )
    assert_success(result)
    rows = reward_rows(result.stdout)
    assert rows["episode_count"] == 2.0 and rows["mean_step_count"] == 180.0
    assert rows["mean"] == -30.0  # the optimum of the simple problem: one raw piece per six orders
    assert "rollout_stats  BaseEnvEvents         kpi" in result.stdout


FAILING_ENV_MODULE = '''
"""A CartPole whose episode with a given seed raises at its third step."""
import gymnasium as gym
from maze.env import GymMazeEnv


class FailOnSeed(gym.Wrapper):
    def __init__(self, env, fail_seed):
        super().__init__(env)
        self.fail_seed, self.armed, self.steps = fail_seed, False, 0

    def reset(self, *, seed=None, options=None):
        self.armed, self.steps = seed == self.fail_seed, 0
        return self.env.reset(seed=seed, options=options)

    def step(self, action):
        self.steps += 1
        if self.armed and self.steps == 3:
            crash_the_env()
        return self.env.step(action)


def crash_the_env():
    raise ValueError("the failing test env raised on purpose")


def make_env(name, render_mode=None, fail_seed=-1):
    return GymMazeEnv(FailOnSeed(gym.make(name, render_mode=render_mode), fail_seed))
'''


def test_a_failing_worker_fails_the_run_with_its_traceback_and_keeps_the_other_episodes(tmp_path: Path) -> None:
    (tmp_path / "failing_rollout_env.py").write_text(FAILING_ENV_MODULE)
    run_dir = tmp_path / "run"
    seeds = ",".join(str(seed) for seed in range(1000, 1040))
    command = maze_run_command(
        "env._target_=failing_rollout_env.make_env",
        "+env.fail_seed=1017",
        f"seeding.explicit_env_seeds=[{seeds}]",
        "runner=parallel",
        "runner.n_processes=3",
        "runner.n_episodes=40",
        "runner.max_episode_steps=30",
        run_dir=run_dir,
    )
    env = {**maze_run_env(), "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    error = result.stderr
    assert "Error: rollout worker" in error and "failed in episode 17 (env seed 1017" in error
    assert "ValueError: the failing test env raised on purpose" in error
    assert "Traceback (most recent call last):" in error and "in crash_the_env" in error
    assert "rollout_stats" not in result.stdout
    finished = int(re.search(r"(\d+) of 40 episodes were reported", error).group(1))
    assert 17 <= finished < 40
    assert f"; {finished} trajectory files were written" in error
    assert len(trajectory_files(run_dir)) == finished
    rows = (run_dir / "event_logs" / "BaseEnvEvents.reward.tsv").read_text().splitlines()
    assert len({row.split("\t")[0] for row in rows[1:]}) == finished


def test_random_baseline_under_normalizing_wrappers_ends_naming_its_run_directory(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = maze_run(
        "-cn",
        "conf_rollout",
        "env.name=CartPole-v1",
        "wrappers=vector_obs",  # normalizes observations; no input_dir gives statistics
        "policy=random_policy",
        "runner=auto",
        "runner.n_episodes=3",
        "runner.normalization_samples=200",
        run_dir=run_dir,
    )
    assert_success(result)
    assert "no input_dir: estimated them from 200 observations of its sampling policy" in result.stdout
    assert (run_dir / "statistics.npz").is_file()
    assert reward_rows(result.stdout)["episode_count"] == 3.0
    assert "worker processes" not in result.stdout  # three short episodes stay in the main process
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("rollout: 3 episodes, ") and " s of start-up. " in last
    assert last.endswith(f"Outputs: {run_dir.resolve()} (trajectory_data/, event_logs/)")
