"""read_hydra_config, make_env_from_hydra and hydra_override."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hydra.errors import MissingConfigException
from maze.env.wrappers.normalization.normalization_utils import find_normalization_wrapper
from maze.rl.hydra_config import hydra_override, make_env_from_hydra, read_hydra_config


def test_read_hydra_config_composes_a_root_like_the_command_line() -> None:
    cfg = read_hydra_config(env="gym_env", policy="random_policy", overrides=["env.name=Acrobot-v1"])
    assert {"policy", "env", "wrappers"} <= set(cfg)
    assert cfg.env.name == "Acrobot-v1"
    assert cfg.policy._target_.endswith("RandomPolicy")
    train = read_hydra_config(config_name="conf_train", algorithm="a2c", runner="dev", return_hydra_config=True)
    assert (train.runner._target_, train.runner.backend) == ("maze.train.trainers.a2c.runner.A2CRunner", "dev")
    assert train.hydra.runtime.choices.algorithm_runner == "a2c"
    with pytest.raises(MissingConfigException, match="algorithm/ppx"):
        read_hydra_config(config_name="conf_train", algorithm="ppx")


def test_make_env_from_hydra_builds_the_wrapped_env_with_normalization_statistics(tmp_path: Path) -> None:
    env = make_env_from_hydra(wrappers="vector_obs", overrides=["env.name=CartPole-v1"])
    wrapper = find_normalization_wrapper(env)
    assert wrapper.missing_statistics_keys() == []
    observation, _ = env.reset(seed=0)
    assert np.all(np.abs(observation["observation"]) <= 3)
    wrapper.dump_statistics(tmp_path / wrapper.statistics_dump)
    stored = wrapper.get_statistics()
    loaded = make_env_from_hydra(wrappers="vector_obs", overrides=["env.name=CartPole-v1", f"input_dir={tmp_path}"])
    for key, statistics in find_normalization_wrapper(loaded).get_statistics().items():
        for name, value in statistics.items():
            np.testing.assert_allclose(value, stored[key][name])
    assert type(make_env_from_hydra(env="gym_env")).__name__ == "GymMazeEnv"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (3, "3"),
        (1e-05, "1e-05"),
        (math.inf, "inf"),
        ("CartPole-v1", "'CartPole-v1'"),
        ("it's", "'it\\'s'"),
        ([1, "a", [0.5]], "[1,'a',[0.5]]"),
        ({"a": 1, "b": None}, "{a:1,b:null}"),
    ],
)
def test_hydra_override_writes_values_in_the_override_grammar(value: object, text: str) -> None:
    assert hydra_override("key", value) == f"key={text}"
    if value is not None and not isinstance(value, float):
        assert read_hydra_config(overrides=[hydra_override("+probe", value)]).probe == value


def test_hydra_override_rejects_objects() -> None:
    with pytest.raises(TypeError, match="no Hydra override syntax"):
        hydra_override("env", object())
