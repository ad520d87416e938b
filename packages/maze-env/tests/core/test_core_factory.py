"""Factory: configs with _target_ into objects, with clear errors."""

from __future__ import annotations

import pytest
from maze.env import ConfigurationError, DummyCartPolePolicy, GymMazeEnv, MazeEnv, Policy, RandomPolicy
from maze.env.utils.factory import Factory, resolve_target
from omegaconf import OmegaConf

CARTPOLE = {"_target_": "maze.env.GymMazeEnv", "env": "CartPole-v1"}


def test_instantiate_from_dict() -> None:
    env = Factory(MazeEnv).instantiate(CARTPOLE)
    assert isinstance(env, GymMazeEnv)
    assert env.action_space["action"].n == 2


def test_instantiate_with_extra_kwargs() -> None:
    env = Factory(MazeEnv).instantiate({"_target_": "maze.env.GymMazeEnv"}, env="CartPole-v1")
    assert isinstance(env, GymMazeEnv)
    env = Factory(MazeEnv).instantiate({**CARTPOLE, "env": "NoSuchEnv-v0"}, env="CartPole-v1")
    assert isinstance(env, GymMazeEnv)  # kwargs override config keys


def test_instantiate_from_dict_config() -> None:
    env = Factory(MazeEnv).instantiate(OmegaConf.create(CARTPOLE))
    assert isinstance(env, GymMazeEnv)


def test_instance_passes_through_unchanged() -> None:
    env = GymMazeEnv("CartPole-v1")
    assert Factory(MazeEnv).instantiate(env) is env


def test_class_is_called() -> None:
    assert isinstance(Factory(Policy).instantiate(DummyCartPolePolicy), DummyCartPolePolicy)


def test_wrong_type_raises() -> None:
    with pytest.raises(ConfigurationError, match="expected a MazeEnv.*DummyCartPolePolicy"):
        Factory(MazeEnv).instantiate(DummyCartPolePolicy())
    with pytest.raises(ConfigurationError, match="produced a DummyCartPolePolicy, but a MazeEnv is needed"):
        Factory(MazeEnv).instantiate({"_target_": "maze.env.DummyCartPolePolicy"})
    with pytest.raises(ConfigurationError, match="no _target_ key"):
        Factory(MazeEnv).instantiate({"env": "CartPole-v1"})


def test_unknown_module_is_reported() -> None:
    with pytest.raises(ConfigurationError, match="no module 'no_such_package' is installed"):
        Factory(MazeEnv).instantiate({"_target_": "no_such_package.Env"})
    with pytest.raises(
        ConfigurationError, match="'maze.env' has no attribute 'gym_adaptr'.*Did you mean 'gym_adapter'"
    ):
        resolve_target("maze.env.gym_adaptr.GymMazeEnv")


def test_misspelt_attribute_gets_a_suggestion() -> None:
    with pytest.raises(ConfigurationError, match="has no attribute 'GymMazeEvn'.*Did you mean 'GymMazeEnv'"):
        Factory(MazeEnv).instantiate({"_target_": "maze.env.GymMazeEvn", "env": "CartPole-v1"})


def test_wrongly_cased_class_and_argument_names_get_the_right_suggestion() -> None:
    with pytest.raises(ConfigurationError, match="has no attribute 'GYMMAZEENV'. Did you mean 'GymMazeEnv'"):
        resolve_target("maze.env.GYMMAZEENV")
    config = {"_target_": "maze.env.RandomPolicy", "action_spaces_dict": {}, "SEED": 3}
    with pytest.raises(ConfigurationError, match=r"Unexpected: \['SEED'\]. Did you mean 'seed'\?"):
        Factory(Policy).instantiate(config)


def test_short_names_come_from_search_modules() -> None:
    assert resolve_target("GymMazeEnv", search_modules=("maze.env",)) is GymMazeEnv
    with pytest.raises(ConfigurationError, match="Did you mean 'GymMazeEnv'"):
        resolve_target("GymMazeEv", search_modules=("maze.env",))


def test_unexpected_kwarg_names_it_and_the_accepted_ones() -> None:
    config = {"_target_": "maze.env.RandomPolicy", "action_spaces_dict": {}, "sed": 3}
    with pytest.raises(ConfigurationError, match=r"Unexpected: \['sed'\].*Did you mean 'seed'.*accepts"):
        Factory(Policy).instantiate(config)
    with pytest.raises(ConfigurationError, match="missing a required argument: 'action_spaces_dict'"):
        Factory(Policy).instantiate({"_target_": "maze.env.RandomPolicy"})


def test_instantiate_collection_of_list_and_mapping() -> None:
    existing = DummyCartPolePolicy()
    policies = Factory(Policy).instantiate_collection([{"_target_": "maze.env.DummyCartPolePolicy"}, existing])
    assert isinstance(policies, list) and len(policies) == 2
    assert isinstance(policies[0], DummyCartPolePolicy) and policies[1] is existing

    named = Factory(Policy).instantiate_collection(
        OmegaConf.create({"random": {"_target_": "maze.env.RandomPolicy", "action_spaces_dict": {}}})
    )
    assert set(named) == {"random"} and isinstance(named["random"], RandomPolicy)
    with pytest.raises(ConfigurationError, match="expected a list or a mapping"):
        Factory(Policy).instantiate_collection("maze.env.RandomPolicy")


def test_an_argument_a_callee_rejects_names_the_config_key_not_the_value() -> None:
    """``GymMazeEnv`` passes unknown keys on to ``gymnasium.make``, whose env raises a raw TypeError."""
    config = {"_target_": "maze.env.make_gym_maze_env", "name": "CartPole-v1", "bogus": "x" * 500}
    with pytest.raises(
        ConfigurationError, match=r"CartPoleEnv.__init__\(\) does not take it\. Remove env.bogus"
    ) as error:
        Factory(MazeEnv, config_key="env").instantiate(config)
    assert "xxxxx" not in str(error.value) and error.value.__cause__ is None
    with pytest.raises(ConfigurationError, match=r"argument 'bogus' on.* Remove bogus from the config"):
        Factory(MazeEnv).instantiate(config)


def test_a_type_error_unrelated_to_the_config_keys_is_left_alone() -> None:
    def broken(name: str, **kwargs: object) -> MazeEnv:
        raise TypeError("f() got an unexpected keyword argument 'other'")

    with pytest.raises(TypeError, match="'other'"):
        Factory(MazeEnv, config_key="env").instantiate(broken, name="x", colour="red")
