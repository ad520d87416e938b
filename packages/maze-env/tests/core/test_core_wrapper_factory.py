"""WrapperFactory: wrapper stacks from config mappings, first key innermost."""

from __future__ import annotations

from typing import Any

import pytest
from maze.env import ConfigurationError, GymMazeEnv, RewardWrapper, Wrapper
from maze.env.testing.env_checker import check_env
from maze.env.testing.fake_envs import build_multi_step_env
from maze.env.wrappers.wrapper_factory import WrapperFactory
from omegaconf import OmegaConf


class AddReward(RewardWrapper):
    def __init__(self, env: Any, amount: float) -> None:
        super().__init__(env)
        self.amount = amount

    def reward(self, reward: Any) -> Any:
        return reward + self.amount


class ScaleReward(RewardWrapper):
    def __init__(self, env: Any, factor: float = 2.0, *, clip: bool = False) -> None:
        super().__init__(env)
        self.factor = factor
        self.clip = clip

    def reward(self, reward: Any) -> Any:
        return reward * self.factor


class AnyKwargs(Wrapper):
    def __init__(self, env: Any, **options: Any) -> None:
        super().__init__(env)
        self.options = options


class NotAWrapper:
    def __init__(self, env: Any) -> None:
        self.env = env


ADD = f"{__name__}.AddReward"
SCALE = f"{__name__}.ScaleReward"


def _first_reward(env: Any) -> float:
    env.reset(seed=0)
    return env.step({"action": 0})[1]


def test_first_key_is_innermost() -> None:
    add_then_scale = WrapperFactory.wrap_from_config(
        GymMazeEnv("CartPole-v1"), {ADD: {"amount": 1.0}, SCALE: {"factor": 10.0}}
    )
    assert type(add_then_scale) is ScaleReward and type(add_then_scale.env) is AddReward
    assert _first_reward(add_then_scale) == (1.0 + 1.0) * 10.0
    scale_then_add = WrapperFactory.wrap_from_config(
        GymMazeEnv("CartPole-v1"), {SCALE: {"factor": 10.0}, ADD: {"amount": 1.0}}
    )
    assert _first_reward(scale_then_add) == 1.0 * 10.0 + 1.0
    assert isinstance(scale_then_add, GymMazeEnv)


def test_dict_config_and_empty_arguments() -> None:
    config = OmegaConf.create(
        {"bonus": 3, "wrappers": {SCALE: None, ADD: {"amount": "${bonus}"}, "maze.env.wrappers.wrapper.Wrapper": {}}}
    )
    env = WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), config.wrappers)
    assert type(env) is Wrapper and type(env.env) is AddReward and env.env.amount == 3
    assert env.env.env.factor == 2.0


@pytest.mark.parametrize("config", [None, {}, OmegaConf.create({})])
def test_no_wrappers_returns_the_env(config: Any) -> None:
    env = GymMazeEnv("CartPole-v1")
    assert WrapperFactory.wrap_from_config(env, config) is env


def test_var_keyword_wrappers_take_any_argument() -> None:
    env = WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), {f"{__name__}.AnyKwargs": {"a": 1, "b": 2}})
    assert env.options == {"a": 1, "b": 2}


def test_unknown_class_gets_suggestions() -> None:
    with pytest.raises(ConfigurationError, match=r"wrappers config key '.*\.ScaleRewrd'.*Did you mean 'ScaleReward'"):
        WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), {f"{__name__}.ScaleRewrd": {}})
    with pytest.raises(ConfigurationError, match="wrappers config key 'NoSuchWrapper'"):
        WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), {"NoSuchWrapper": {}})


def test_non_wrapper_class_is_rejected() -> None:
    with pytest.raises(ConfigurationError, match="NotAWrapper.*not a subclass of maze.env.wrappers.wrapper.Wrapper"):
        WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), {f"{__name__}.NotAWrapper": {}})


def test_wrongly_cased_wrapper_and_argument_names_get_the_right_suggestion() -> None:
    env = GymMazeEnv("CartPole-v1")
    with pytest.raises(ConfigurationError, match="config key 'TIMELIMITWRAPPER'.*Did you mean 'TimeLimitWrapper'"):
        WrapperFactory.wrap_from_config(env, {"TIMELIMITWRAPPER": {"max_episode_steps": 3}})
    with pytest.raises(ConfigurationError, match=r"unexpected argument 'FACTOR' \(did you mean 'factor'\?\)"):
        WrapperFactory.wrap_from_config(env, {f"{__name__}.ScaleReward": {"FACTOR": 0.5}})


def test_bad_arguments_name_wrapper_argument_and_accepted_ones() -> None:
    env = GymMazeEnv("CartPole-v1")
    with pytest.raises(
        ConfigurationError,
        match=r"wrapper '.*ScaleReward' \(ScaleReward\): unexpected argument 'facter' \(did you mean 'factor'\?\)\. "
        r"It accepts: \['factor', 'clip'\]",
    ):
        WrapperFactory.wrap_from_config(env, {SCALE: {"facter": 3.0}})
    with pytest.raises(
        ConfigurationError, match=r"\(AddReward\): missing argument 'amount'\. It accepts: \['amount'\]"
    ):
        WrapperFactory.wrap_from_config(env, {ADD: {}})
    with pytest.raises(ConfigurationError, match="arguments of wrapper .* must be a mapping"):
        WrapperFactory.wrap_from_config(env, {ADD: [1.0]})
    with pytest.raises(ConfigurationError, match="must map wrapper classes to their arguments"):
        WrapperFactory.wrap_from_config(env, [ADD])


def test_built_stack_passes_the_checkers() -> None:
    config = {SCALE: {"factor": 0.5}, "maze.env.wrappers.wrapper.Wrapper": None}
    check_env(WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), config), n_steps=20)
    check_env(WrapperFactory.wrap_from_config(build_multi_step_env(), config), n_steps=20)


def test_wrapper_classes_work_as_keys_and_other_classes_are_rejected() -> None:
    wrapped = WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), {AddReward: {"amount": 1.0}, SCALE: None})
    assert type(wrapped) is ScaleReward and type(wrapped.env) is AddReward
    with pytest.raises(ConfigurationError, match="unexpected argument 'amout'.*did you mean 'amount'"):
        WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), {AddReward: {"amout": 1.0}})
    with pytest.raises(ConfigurationError, match="not a subclass of maze.env.wrappers.wrapper.Wrapper"):
        WrapperFactory.wrap_from_config(GymMazeEnv("CartPole-v1"), {dict: {}})
