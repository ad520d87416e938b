"""model=rllib: RLlib's own default modules (PPO's actor-critic, SAC's networks) on Maze envs, evaluated by Maze."""

from __future__ import annotations

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


def test_sac_with_rllibs_networks_learns_pendulum(
    ray_session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overrides = (
        "env.name=Pendulum-v1",
        "rllib/algorithm=sac",
        "model=rllib",
        "model.fcnet_hiddens=[64,64]",
        "model.fcnet_activation=relu",
        "algorithm.config.train_batch_size_per_learner=64",
        "algorithm.max_env_steps=4500",
        "algorithm.target_reward=-800",
        "algorithm.eval_interval=1",
        "algorithm.eval_episodes=4",
        "seeding.env_base_seed=0",
        "seeding.agent_base_seed=0",
    )
    runner = set_up_job("conf_rllib", overrides, tmp_path / "run", monkeypatch)

    best = runner.run()

    # A random policy returns about -1400 (so do the evaluations after 500..2,000 env steps). Measured here (runs are
    # not bit-reproducible): -1090 and -920 after 2,500 env steps, -510 and -780 after 3,000 (the run stops there,
    # 82-85 s); maze-run seed 0: -480 after 2,500, seed 1: -200 after 3,000. Box actions are unsquashed from [-1, 1].
    # The budget leaves three more evaluations for a run that starts learning late (each about 12 s).
    assert best >= -800
    assert runner.trainer.env_steps <= 4500
    assert (tmp_path / "run" / RLLIB_MODULE_DIR / "module_state.pkl").is_file()
