"""Healthy runs on Ray print no line at warning level or above, and PPO says in one line where its envs step."""

from __future__ import annotations

from pathlib import Path

import pytest
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


OTHER_TRAINING_ON_RAY = {
    "impala": (
        "algorithm=impala",
        "critic=template_state",
        "algorithm.num_actors=2",
        "algorithm.n_epochs=1",
        "algorithm.epoch_length=2",
        "algorithm.rollout_evaluator.n_episodes=2",
    ),
    "es": (
        "algorithm=es",
        "algorithm.n_epochs=1",
        "algorithm.n_rollouts_per_update=4",
        "algorithm.n_timesteps_per_update=0",
        "runner.n_train_workers=2",
        "runner.n_eval_rollouts=2",
        "runner.shared_noise_table_size=200000",
    ),
    "sac": (
        "algorithm=sac",
        "critic=template_state_action",
        "algorithm.n_epochs=1",
        "algorithm.epoch_length=2",
        "algorithm.initial_buffer_size=100",
        "algorithm.batch_size=32",
        "algorithm.rollout_evaluator.n_episodes=2",
    ),
}
"""The other trainers with Ray actors (each starts its actors once), on CartPole for seconds."""


@pytest.mark.parametrize("algorithm", list(OTHER_TRAINING_ON_RAY))
def test_healthy_training_runs_of_the_other_ray_trainers_are_quiet(algorithm: str, tmp_path: Path) -> None:
    overrides = (
        "env.name=CartPole-v1",
        "model=vector_obs",
        "runner=ray",
        "runner.progress=off",
        "seeding.env_base_seed=1",
        "seeding.agent_base_seed=2",
        *OTHER_TRAINING_ON_RAY[algorithm],
    )
    result = run_maze("conf_train", overrides, tmp_path)

    assert alarming_lines(result.stdout + result.stderr) == []
