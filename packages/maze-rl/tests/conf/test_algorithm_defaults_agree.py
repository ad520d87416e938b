"""Every algorithm's defaults are stated once: the YAML of ``algorithm=<name>`` and its config dataclass agree.

``maze-run algorithm=ppo`` reads the YAML; ``RunContext(algorithm=PPOAlgorithmConfig())`` and
trainers built in Python read the dataclass. A default changed in one place only would make
the two paths train differently.
"""

from __future__ import annotations

import dataclasses
import math
from importlib import resources

import pytest
import yaml
from maze.train.trainers.a2c import A2CAlgorithmConfig
from maze.train.trainers.bc.config import BCAlgorithmConfig
from maze.train.trainers.es.config import ESAlgorithmConfig
from maze.train.trainers.impala.config import ImpalaAlgorithmConfig
from maze.train.trainers.ppo import PPOAlgorithmConfig
from maze.train.trainers.sac.config import SACAlgorithmConfig

CONFIG_CLASSES = {
    "a2c": A2CAlgorithmConfig,
    "ppo": PPOAlgorithmConfig,
    "impala": ImpalaAlgorithmConfig,
    "sac": SACAlgorithmConfig,
    "es": ESAlgorithmConfig,
    "bc": BCAlgorithmConfig,
}
NESTED_CONFIGS = {"rollout_evaluator", "initial_sampling_policy", "optimizer", "policy_wrapper"}
"""Keys holding ``_target_`` configs (objects in the dataclass); their YAML values are checked by the config tests."""


def algorithm_yaml(name: str) -> dict:
    return yaml.safe_load(resources.files("maze.conf.algorithm").joinpath(f"{name}.yaml").read_text())


@pytest.mark.parametrize("name", sorted(CONFIG_CLASSES))
def test_yaml_and_dataclass_defaults_agree(name: str) -> None:
    config_class = CONFIG_CLASSES[name]
    from_yaml = algorithm_yaml(name)
    dataclass_defaults = {
        field.name: field.default
        for field in dataclasses.fields(config_class)
        if field.default is not dataclasses.MISSING
    }
    disagreeing = {
        key: (value, dataclass_defaults[key])
        for key, value in from_yaml.items()
        if key in dataclass_defaults and key not in NESTED_CONFIGS and not _same(value, dataclass_defaults[key])
    }
    assert not disagreeing, (
        f"algorithm/{name}.yaml and {config_class.__name__} disagree (yaml, dataclass): {disagreeing}"
    )
    assert set(from_yaml) <= {field.name for field in dataclasses.fields(config_class)}


def _same(left: object, right: object) -> bool:
    if isinstance(left, (int, float)) and isinstance(right, (int, float)) and not isinstance(left, bool):
        return math.isclose(float(left), float(right), rel_tol=1e-12)
    return left == right
