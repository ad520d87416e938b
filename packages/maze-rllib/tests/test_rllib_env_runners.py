"""rllib/runner=local: RLlib samples in env runner actors (Ray processes), not in the driver."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ray_runs import set_up_job


def test_local_runner_samples_in_an_env_runner_actor(
    ray_session: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overrides = (
        "env.name=CartPole-v1",
        "rllib/algorithm=ppo",
        "rllib/runner=local",
        "runner.num_env_runners=1",
        "model=vector_obs",
        "algorithm.max_iterations=1",
        "algorithm.config.train_batch_size_per_learner=500",
        "algorithm.eval_episodes=2",
        "seeding.env_base_seed=0",
        "seeding.agent_base_seed=0",
    )
    runner = set_up_job("conf_rllib", overrides, tmp_path / "run", monkeypatch)

    runner.run()

    # with remote env runners RLlib samples only in them (the run stops them at its end)
    assert runner.trainer.algorithm.config.num_env_runners == 1
    assert runner.trainer.env_steps >= 500
    assert (tmp_path / "run" / "state_dict.pt").is_file()
