"""model=rllib: RLlib's own default modules (PPO's actor-critic, SAC's networks) on Maze envs, evaluated by Maze."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from maze.rllib.default_model import RLLIB_MODULE_DIR
from ray_runs import set_up_job


def test_ppo_with_rllibs_default_model_learns_cartpole(
    ray_session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overrides = (
        "env.name=CartPole-v1",
        "rllib/algorithm=ppo",
        "model=rllib",
        "model.fcnet_hiddens=[128,128]",
        "algorithm.max_iterations=2",
        "algorithm.eval_episodes=4",
        "seeding.env_base_seed=1",
        "seeding.agent_base_seed=1",
    )
    runner = set_up_job("conf_rllib", overrides, tmp_path / "run", monkeypatch)

    best = runner.run()

    assert best >= 100  # a random policy returns about 22; measured: 220 after the 2 iterations (8000 env steps)
    assert (tmp_path / "run" / RLLIB_MODULE_DIR / "module_state.pkl").is_file()


def test_sac_runs_with_rllibs_networks_on_a_box_action(
    ray_session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overrides = (
        "env.name=Pendulum-v1",
        "rllib/algorithm=sac",
        "model=rllib",
        "algorithm.max_env_steps=400",
        "algorithm.eval_interval=100",
        "algorithm.eval_episodes=1",
        "algorithm.config.num_steps_sampled_before_learning_starts=200",
        "seeding.env_base_seed=0",
        "seeding.agent_base_seed=0",
    )
    runner = set_up_job("conf_rllib", overrides, tmp_path / "run", monkeypatch)

    best = runner.run()

    assert runner.trainer.env_steps >= 400
    assert math.isfinite(best) and -2000 < best <= 0  # Pendulum's return range; the unsquashed torques were valid
    assert (tmp_path / "run" / RLLIB_MODULE_DIR / "module_state.pkl").is_file()
