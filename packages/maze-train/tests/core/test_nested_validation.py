"""Validation of the settings nested under a ``_target_`` and the frozen baseline ``lr=0``."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.train.core.config import validate_target_config
from maze.train.trainers import PPOAlgorithmConfig
from maze.train.trainers.bc import BCAlgorithmConfig
from maze.train.trainers.es import ESAlgorithmConfig
from maze.train.trainers.sac import SACAlgorithmConfig

ES_ADAM = "maze.train.trainers.es.optimizers.adam.Adam"
ES_SGD = "maze.train.trainers.es.optimizers.sgd.SGD"
EVALUATOR = "maze.train.evaluators.RolloutEvaluator"


@pytest.mark.parametrize(
    ("config_class", "values", "message"),
    [
        (
            BCAlgorithmConfig,
            {"optimizer": {"_target_": "maze.train.optim.Adam", "lr": -1}},
            "algorithm.optimizer.lr=-1 is out of range; it must be >= 0",
        ),
        (
            BCAlgorithmConfig,
            {"optimizer": {"_target_": "maze.train.optim.Adam", "lr": 0.1, "eps": 0}},
            "algorithm.optimizer.eps=0 is out of range; it must be > 0",
        ),
        (
            ESAlgorithmConfig,
            {"optimizer": {"_target_": ES_ADAM, "step_size": -1}},
            "algorithm.optimizer.step_size=-1 is out of range; it must be >= 0",
        ),
        (
            ESAlgorithmConfig,
            {"optimizer": {"_target_": ES_SGD, "step_size": 0.1, "momentum": 1}},
            "algorithm.optimizer.momentum=1 is out of range; it must be >= 0 and < 1",
        ),
        (
            ESAlgorithmConfig,
            {"optimizer": {"_target_": ES_ADAM, "step_size": "fast"}},
            "algorithm.optimizer.step_size='fast' is not a valid number",
        ),
        (
            PPOAlgorithmConfig,
            {"rollout_evaluator": {"_target_": EVALUATOR, "n_episodes": 0}},
            "algorithm.rollout_evaluator.n_episodes=0 is out of range; it must be >= 1",
        ),
        (
            SACAlgorithmConfig,
            {"rollout_evaluator": {"_target_": EVALUATOR, "n_episodes": 2, "deterministic": "yes"}},
            "algorithm.rollout_evaluator.deterministic='yes' is not a valid boolean (true/false)",
        ),
    ],
)
def test_nested_settings_are_validated_naming_the_full_key(config_class: type, values: dict, message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        config_class.from_config(values)
    assert str(raised.value) == message


def test_a_foreign_optimizer_refusing_its_arguments_is_one_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"algorithm.optimizer=.* is refused by torch.optim.SGD: .*-1"):
        BCAlgorithmConfig.from_config({"optimizer": {"_target_": "torch.optim.SGD", "lr": -1}})


@pytest.mark.parametrize(
    ("runner", "message"),
    [
        (
            {
                "_target_": "maze.train.runners.actor_critic_runner.ActorCriticRunner",
                "trainer_class": "x",
                "concurrency": -2,
            },
            "runner.concurrency=-2 is out of range; it must be >= 0",
        ),
        (
            {"_target_": "maze.train.trainers.impala.runner.ImpalaRunner", "envs_per_actor": 0},
            "runner.envs_per_actor=0 is out of range; it must be >= 1",
        ),
        (
            {"_target_": "maze.train.trainers.es.ESRunner", "n_train_workers": 0},
            "runner.n_train_workers=0 is out of range; it must be >= 1",
        ),
        (  # an argument of the base runner, passed on through **kwargs
            {"_target_": "maze.train.trainers.es.ESRunner", "shared_noise_table_size": 0},
            "runner.shared_noise_table_size=0 is out of range; it must be >= 1",
        ),
        (
            {"_target_": "maze.train.trainers.es.ESRunner", "cpu_threads": 0},
            "runner.cpu_threads=0 is out of range; it must be >= 1",
        ),
        (
            {"_target_": "maze.train.trainers.es.ESRunner", "dump_interval": 2.5},
            "runner.dump_interval=2.5 is not a valid integer or null",
        ),
    ],
)
def test_runner_sizes_are_validated(runner: dict, message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        validate_target_config(runner, "runner")
    assert str(raised.value) == message


def test_valid_nested_settings_and_unknown_targets_pass() -> None:
    validate_target_config({"_target_": "maze.train.trainers.es.ESRunner", "dump_interval": None}, "runner")
    validate_target_config({"_target_": "no.such.module.Thing", "lr": -1}, "algorithm.optimizer")  # the factory's job
    validate_target_config({"lr": -1}, "algorithm.optimizer")  # no _target_: nothing to check against


def learning_rate(config_class: type, value: float) -> dict[str, Any]:
    """The algorithm keys that set the learning rate (step size) of the model to ``value``."""
    if config_class is BCAlgorithmConfig:
        return {"optimizer": {"_target_": "maze.train.optim.Adam", "lr": value}}
    if config_class is ESAlgorithmConfig:
        return {"optimizer": {"_target_": ES_SGD, "step_size": value}}
    return {"lr": value}


@pytest.mark.parametrize("config_class", [PPOAlgorithmConfig, SACAlgorithmConfig, BCAlgorithmConfig, ESAlgorithmConfig])
def test_a_zero_learning_rate_is_a_valid_frozen_baseline_and_negative_ones_are_not(config_class: type) -> None:
    config_class.from_config(learning_rate(config_class, 0))
    with pytest.raises(ConfigurationError, match="=-0.1 is out of range; it must be >= 0"):
        config_class.from_config(learning_rate(config_class, -0.1))


def test_a_zero_learning_rate_leaves_the_parameters_unchanged() -> None:
    from maze.train.optim import Adam
    from maze.train.trainers.es.optimizers import SGD
    from maze.train.trainers.es.optimizers import Adam as ESAdam

    parameter = torch.nn.Parameter(torch.randn(5))
    before = parameter.detach().clone()
    optimizer = Adam([parameter], lr=0)
    for _ in range(3):
        parameter.grad = torch.randn(5)
        optimizer.step()
    assert torch.equal(parameter.detach(), before)
    for es_optimizer in (ESAdam(0), SGD(0)):
        theta = before.clone()
        for _ in range(3):
            assert es_optimizer.update(theta, torch.randn(5)) == 0.0
        assert torch.equal(theta, before)


@pytest.mark.parametrize("trainer_name", ["A2C", "PPO"])
def test_an_actor_critic_run_with_zero_learning_rate_keeps_every_weight(vector_env, trainer_name: str) -> None:
    from maze.env.testing.fake_envs import build_dummy_maze_env
    from maze.perception.models.base_model_composer import build_model_composer
    from maze.perception.models.spaces_config import SpacesConfig
    from maze.train.rollout import RolloutCollector
    from maze.train.trainers import A2C, PPO
    from train_test_support import small_model_config

    trainer_class = {"A2C": A2C, "PPO": PPO}[trainer_name]
    config = trainer_class.config_class.from_config(
        {"lr": 0, "n_epochs": 2, "epoch_length": 2, "n_rollout_steps": 8, "patience": 0}
    )
    spaces = SpacesConfig.from_env(build_dummy_maze_env(max_steps=4))
    model = build_model_composer(small_model_config("flatten_concat", "dummy"), spaces).torch_actor_critic()
    before = [tensor.detach().clone() for tensor in model.parameters()]
    collector = RolloutCollector(vector_env(lambda: build_dummy_maze_env(max_steps=4)), 8, seeds=[0, 1])
    trainer_class(config, collector, None, model, None).train()

    assert all(torch.equal(old, new) for old, new in zip(before, model.parameters(), strict=True))
