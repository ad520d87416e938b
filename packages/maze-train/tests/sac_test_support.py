"""Job configs and set-up of the SAC tests, shared with the resume and progress tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest
from maze.train.trainers.sac.runner import SACRunner
from train_test_support import packaged_config, small_model_config

SAC = "maze.train.trainers.sac.trainer.SAC"
CARTPOLE = {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"}


def sac_model(hidden: int = 8) -> dict[str, Any]:
    """A tiny template model with the template state-action critic."""
    model = small_model_config("template", "cartpole", critic=False, hidden=hidden)
    model.update(packaged_config("critic", "template_state_action"))
    return model


def sac_config(env: Optional[dict] = None, input_dir: Any = "", model: Optional[dict] = None, **algorithm: Any) -> dict:
    """A ``conf_train`` job config for SAC with a tiny budget (CartPole by default)."""
    return {
        "env": env or CARTPOLE,
        "wrappers": {},
        "model": model or sac_model(),
        "algorithm": {
            "n_epochs": 2,
            "epoch_length": 10,
            "batch_size": 16,
            "initial_buffer_size": 32,
            "patience": 0,
            "rollout_evaluator": {"_target_": "maze.train.evaluators.RolloutEvaluator", "n_episodes": 1},
            **algorithm,
        },
        "seeding": {"env_base_seed": 1, "agent_base_seed": 1},
        "input_dir": str(input_dir),
    }


def set_up(directory: Path, cfg: dict, **kwargs: Any) -> SACRunner:
    directory.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(directory)
        runner = SACRunner(SAC, **kwargs)
        runner.setup(cfg)
    return runner
