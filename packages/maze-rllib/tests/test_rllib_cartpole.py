"""Maze on RLlib: PPO trains a Maze model on CartPole-v1, and its run directory serves Maze's own policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.perception.checkpoint import SerializedTorchPolicy
from ray.rllib.core.columns import Columns
from ray_runs import set_up_job

PPO_CARTPOLE = (
    "env.name=CartPole-v1",
    "rllib/algorithm=ppo",
    "model=vector_obs",
    "seeding.env_base_seed=0",
    "seeding.agent_base_seed=0",
    "algorithm.eval_episodes=10",
)
"""RLlib's PPO (the group's defaults) on CartPole-v1 with Maze's small template model."""

SOLVE_BUDGET = ("algorithm.target_reward=450", "algorithm.max_env_steps=60000")
"""Stop at a deterministic mean return of 450 over 10 episodes; the budget is 15 iterations of 4000 steps
(solved after 5 iterations, 20000 steps, when measured)."""


def recorded_observations(policy: SerializedTorchPolicy, steps: int) -> np.ndarray:
    """``[steps, 4]`` CartPole observations visited by ``policy`` with sampled actions (seeded)."""
    env = GymMazeEnv("CartPole-v1")
    observation, _ = env.reset(seed=1)
    policy.seed(1)
    recorded = []
    for _ in range(steps):
        recorded.append(observation["observation"])
        observation, _, terminated, truncated, _ = env.step(policy.compute_action(observation))
        if terminated or truncated:
            observation, _ = env.reset()
    env.close()
    return np.stack(recorded)


def test_ppo_solves_cartpole_and_the_saved_policy_acts_like_the_rl_module(
    ray_session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    runner = set_up_job("conf_rllib", (*PPO_CARTPOLE, *SOLVE_BUDGET), run_dir, monkeypatch)

    best = runner.run()

    assert best >= 450  # deterministic evaluation, mean of 10 episodes
    # training stopped at the evaluation that reached the target: the saved best model is the module's last state
    policy = SerializedTorchPolicy(
        model=None,
        state_dict_file=run_dir / "state_dict.pt",
        spaces_dict_file=run_dir / "spaces_config.yaml",
        model_config_file=run_dir / "model_config.yaml",
    )
    observations = recorded_observations(policy, 1000)
    module = runner.trainer.algorithm.get_module()
    with torch.no_grad():
        logits = module.forward_inference({Columns.OBS: {"observation": torch.from_numpy(observations)}})
        distribution = module.get_inference_action_dist_cls().from_logits(logits[Columns.ACTION_DIST_INPUTS])
        rllib_actions = distribution.to_deterministic().sample()["action"].numpy()
    maze_actions = policy.compute_action({"observation": observations}, deterministic=True)["action"]
    assert rllib_actions.shape == maze_actions.shape == (1000,)
    np.testing.assert_array_equal(rllib_actions, maze_actions)
    assert 0 < maze_actions.mean() < 1  # both actions occur: the comparison covers both
