"""loggable_config: configs holding built objects written as plain YAML-safe data."""

from __future__ import annotations

import yaml
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.utils.loggable_config import loggable_config
from omegaconf import OmegaConf


def make_env() -> GymMazeEnv:
    return GymMazeEnv("CartPole-v1")


def test_plain_configs_pass_unchanged_and_objects_are_named_by_type() -> None:
    plain = {"algorithm": {"lr": 0.001, "device": "cpu", "target_reward": None}, "list": [1, 2.5, True]}
    assert loggable_config(OmegaConf.create(plain)) == plain
    mixed = {"env": make_env, "model": {"policy": GymMazeEnv, "critic": object()}, "seeds": (1, 2), 3: "int key"}
    logged = loggable_config(mixed)
    assert logged == {
        "env": f"<object {__name__}.make_env>",
        "model": {
            "policy": "<object maze.env.gym_adapter.gym_maze_env.GymMazeEnv>",
            "critic": "<object builtins.object>",
        },
        "seeds": [1, 2],
        3: "int key",
    }
    assert yaml.safe_load(yaml.safe_dump(logged)) == logged
    assert loggable_config({"instance": make_env()})["instance"].startswith("<object maze.env.gym_adapter")
