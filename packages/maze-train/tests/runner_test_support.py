"""Job configs and set-up of the runner tests, shared with other runners' tests (BC, background evaluation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest
import torch
from maze.train.runners.actor_critic_runner import ActorCriticRunner
from train_test_support import small_model_config

PPO = "maze.train.trainers.ppo.PPO"
A2C = "maze.train.trainers.a2c.A2C"
CARTPOLE = {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"}
VECTOR_OBS_WRAPPERS = {
    "ObservationNormalizationWrapper": {
        "default_strategy": "MeanZeroStdOneObservationNormalizationStrategy",
        "default_strategy_config": {"clip_range": [-3, 3], "axis": [0]},
        "default_statistics": None,
        "statistics_dump": "statistics.npz",
        "sampling_policy": {"_target_": "maze.env.agent.random_policy.RandomPolicy"},
        "exclude": None,
        "manual_config": None,
    },
    "MazeEnvMonitoringWrapper": {"observation_logging": False, "action_logging": True, "reward_logging": True},
}
"""The ``wrappers=vector_obs`` config of maze-rl (maze-rl is no dependency of maze-train)."""


def job_config(
    env: Optional[dict] = None,
    model: Optional[dict] = None,
    input_dir: Any = "",
    wrappers: Optional[dict] = None,
    **algorithm: Any,
) -> dict[str, Any]:
    """A ``conf_train`` job config with a tiny budget (CartPole, small template model by default)."""
    return {
        "env": env or CARTPOLE,
        "wrappers": wrappers or {},
        "model": model or small_model_config("template", "cartpole"),
        "algorithm": {
            "n_epochs": 1,
            "epoch_length": 2,
            "n_rollout_steps": 16,
            "patience": 0,
            "lr": 1e-3,
            "rollout_evaluator": {"_target_": "maze.train.evaluators.RolloutEvaluator", "n_episodes": 2},
            **algorithm,
        },
        "seeding": {"env_base_seed": 1, "agent_base_seed": 1},
        "input_dir": str(input_dir),
    }


def set_up(
    directory: Path, cfg: dict, trainer: str = PPO, runner_class: type = ActorCriticRunner, **kwargs: Any
) -> Any:
    """A runner set up with ``directory`` as its run directory (the working directory during setup)."""
    directory.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(directory)
        runner = runner_class(trainer, **{"concurrency": 2, **kwargs})
        runner.setup(cfg)
    return runner


def same_state(state: dict[str, Any], other: dict[str, Any]) -> bool:
    """Two (nested) state dicts hold the same keys and equal tensors."""
    if state.keys() != other.keys():
        return False
    return all(
        same_state(value, other[key]) if isinstance(value, dict) else torch.equal(value, other[key])
        for key, value in state.items()
    )
