"""isinstance, attribute pass-through and unwrapped through stacks of maze wrappers."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from maze.env import (
    CoreEnv,
    EventEnvMixin,
    GymMazeEnv,
    MazeEnv,
    ObservationWrapper,
    RecordableEnvMixin,
    RewardWrapper,
    StructuredEnv,
    TimeEnvMixin,
    Wrapper,
)
from maze.env.testing.env_checker import check_env
from maze.env.testing.fake_envs import build_multi_step_env


class DoubleReward(RewardWrapper):
    def reward(self, reward: Any) -> Any:
        return 2 * reward


class ScaledItems(ObservationWrapper):
    """Halves ``items`` of every sub-step; its spaces are the inner spaces with the same keys."""

    def observation(self, observation: dict) -> dict:
        return {**observation, "items": observation["items"] * 0.5}


class Unrelated:
    pass


def test_isinstance_sees_through_the_stack() -> None:
    env = Wrapper(Wrapper(GymMazeEnv("CartPole-v1")))
    assert isinstance(env, GymMazeEnv)
    assert isinstance(env, MazeEnv)
    assert isinstance(env, StructuredEnv)
    assert isinstance(env, EventEnvMixin)
    assert isinstance(env, TimeEnvMixin)
    assert isinstance(env, RecordableEnvMixin)
    assert isinstance(env, Wrapper)
    assert not isinstance(env, Unrelated)
    assert not isinstance(env, CoreEnv)
    assert not isinstance(env, DoubleReward)


def test_wrap_builds_the_same_stack_as_the_constructor() -> None:
    env = DoubleReward.wrap(Wrapper.wrap(GymMazeEnv("CartPole-v1")))
    assert type(env) is DoubleReward
    assert type(env.env) is Wrapper
    assert isinstance(env, GymMazeEnv) and isinstance(env, DoubleReward)


def test_attributes_pass_through_and_unwrapped_is_the_maze_env() -> None:
    inner = GymMazeEnv("CartPole-v1")
    env = DoubleReward(Wrapper(inner))
    assert env.unwrapped is inner
    assert env.core_env is inner.core_env
    assert env.gym_env is inner.gym_env
    assert env.observation_space is inner.observation_space
    assert env.action_spaces_dict is inner.action_spaces_dict
    assert env.metadata is inner.metadata
    env.reset(seed=0)
    assert env.actor_id() == (0, 0)
    _, reward, _, _, _ = env.step({"action": 1})
    assert reward == 2.0
    assert env.get_env_time() == 1
    assert list(env.get_step_events()) == []


def test_unknown_attribute_raises_attribute_error() -> None:
    env = Wrapper(GymMazeEnv("CartPole-v1"))
    assert not hasattr(env, "no_such_attribute")


def test_observation_wrapper_on_multi_step_env_passes_the_checker() -> None:
    env = ScaledItems(build_multi_step_env())
    obs, _ = env.reset(seed=0)
    assert obs["items"].dtype == np.float32
    assert isinstance(env.observation_space, spaces.Dict)
    check_env(env, n_steps=20)
