"""Every algorithm's defaults are stated once: the YAML of ``algorithm=<name>`` and its config dataclass agree.

``maze-run algorithm=ppo`` reads the YAML; ``RunContext(algorithm=PPOAlgorithmConfig())`` and
trainers built in Python read the dataclass. A default changed in one place only would make
the two paths train differently.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import pytest
from hydra import compose, initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from maze.train import A2C, IMPALA, PPO, SAC, BCTrainer, ESTrainer
from omegaconf import OmegaConf

TRAINERS = {"a2c": A2C, "ppo": PPO, "impala": IMPALA, "sac": SAC, "sacfd": SAC, "es": ESTrainer, "bc": BCTrainer}
"""The trainer of each ``algorithm`` option; its ``config_class`` holds the dataclass defaults."""

NOT_IN_YAML = {"bc": {"max_env_steps"}}
"""Fields an algorithm's YAML leaves out on purpose (BC collects no env steps and refuses the key)."""


@pytest.fixture(autouse=True, scope="module")
def maze_conf() -> Iterator[None]:
    with initialize_config_module(config_module="maze.conf", version_base="1.3"):
        yield


def test_every_algorithm_option_has_a_trainer() -> None:
    assert sorted(GlobalHydra.instance().config_loader().get_group_options("algorithm")) == sorted(TRAINERS)


@pytest.mark.parametrize("name", sorted(TRAINERS))
def test_yaml_and_dataclass_defaults_agree(name: str) -> None:
    config_class = TRAINERS[name].config_class
    from_yaml = OmegaConf.to_container(compose("conf_train", [f"algorithm={name}"]).algorithm)
    defaults = {field.name: _default(field) for field in dataclasses.fields(config_class)}
    assert set(from_yaml) <= set(defaults), f"algorithm/{name}.yaml has keys {config_class.__name__} lacks"
    assert set(defaults) - set(from_yaml) == NOT_IN_YAML.get(name, set()), f"algorithm/{name}.yaml lacks keys"
    disagreeing = {key: (value, defaults[key]) for key, value in from_yaml.items() if not _same(value, defaults[key])}
    assert not disagreeing, (
        f"algorithm/{name}.yaml and {config_class.__name__} disagree (yaml, dataclass): {disagreeing}"
    )


def _default(field: dataclasses.Field) -> Any:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return None if field.default is dataclasses.MISSING else field.default


def _same(left: object, right: object) -> bool:
    if isinstance(left, (int, float)) and isinstance(right, (int, float)) and not isinstance(left, bool):
        return math.isclose(float(left), float(right), rel_tol=1e-12)
    return left == right
