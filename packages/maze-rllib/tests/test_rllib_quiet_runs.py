"""A healthy RLlib run prints no line at warning level or above (RLlib's notices, gymnasium's space checks)."""

from __future__ import annotations

from pathlib import Path

from run_output import alarming_lines, run_maze

TINY_PPO = (
    "env.name=CartPole-v1",
    "rllib/algorithm=ppo",
    "model=vector_obs",
    "algorithm.max_iterations=1",
    "algorithm.max_env_steps=null",
    "algorithm.config.train_batch_size_per_learner=200",
    "algorithm.config.minibatch_size=50",
    "algorithm.config.num_epochs=1",
    "algorithm.eval_episodes=2",
    "seeding.env_base_seed=1",
    "seeding.agent_base_seed=2",
)
"""One PPO iteration of 200 CartPole steps (sampled in the driver: runner=dev has no env runner actors).

With env runner actors (``runner.num_env_runners>0``) Ray itself still prints one error-level line when RLlib
starts them: RLlib passes its config to them as an object-store reference, which Ray reports for actors with
restarts (ray-project/ray#53727); RLlib holds that reference for as long as the env runners live."""

RLLIB_WARNINGS = (
    "not within the observation space",
    "was expecting numpy array dtype",
    "precision lowered by casting",
    "on the new API stack",
    "has been deprecated",
    "Install gputil",
)
"""The warnings a healthy run printed before (gymnasium's from RLlib's DreamerV3 import, RLlib's notices)."""


def test_a_healthy_rllib_run_prints_no_warnings(tmp_path: Path) -> None:
    result = run_maze("conf_rllib", TINY_PPO, tmp_path)

    output = result.stdout + result.stderr
    assert [line for line in output.splitlines() if any(warning in line for warning in RLLIB_WARNINGS)] == []
    assert alarming_lines(output) == []
