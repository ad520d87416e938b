"""Healthy runs on Ray print no line at warning level or above, and PPO says in one line where its envs step."""

from __future__ import annotations

from pathlib import Path

from run_output import alarming_lines, run_maze

TINY_PPO_ON_RAY = (
    "env.name=CartPole-v1",
    "algorithm=ppo",
    "model=vector_obs",
    "runner=ray",
    "runner.progress=off",
    "algorithm.n_epochs=1",
    "algorithm.epoch_length=2",
    "algorithm.n_rollout_steps=20",
    "algorithm.rollout_evaluator.n_episodes=2",
    "seeding.env_base_seed=1",
    "seeding.agent_base_seed=2",
)
"""PPO on CartPole with its 8 training envs in Ray actors: a job of seconds (after Ray's start)."""


def test_a_healthy_ppo_run_on_ray_is_quiet_and_has_one_placement_line(tmp_path: Path) -> None:
    result = run_maze("conf_train", TINY_PPO_ON_RAY, tmp_path)

    output = result.stdout + result.stderr
    assert alarming_lines(output) == []
    placement = [line for line in output.splitlines() if line.startswith("Training with")]
    assert len(placement) == 1, placement
    assert placement[0].startswith("Training with 8 envs in 2 Ray actors; evaluating with 2 envs in this process")
    assert "An env step takes" not in output


def test_a_healthy_rollout_on_ray_is_quiet(tmp_path: Path) -> None:
    overrides = ("env.name=CartPole-v1", "policy=random_policy", "runner=ray", "runner.n_episodes=4")
    result = run_maze("conf_rollout", overrides, tmp_path)

    assert alarming_lines(result.stdout + result.stderr) == []
