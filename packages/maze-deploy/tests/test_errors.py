"""Misuse and failures give one clear MazeError naming the problem and the fix; nothing deadlocks."""

from __future__ import annotations

import threading
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from deploy_test_support import NORMALIZED
from maze.deploy import (
    AgentDeployment,
    ConcurrentUseError,
    DeploymentOrderError,
    ObservationOutsideSpaceError,
    PolicyExecutionError,
    WrapperStackError,
)
from maze.env import DummyCartPolePolicy, GymMazeEnv, MazeError, RandomResetWrapper
from maze.env.errors import ConfigurationError
from maze.env.wrappers.wrapper import Wrapper

STATE = np.array([0.01, 0.0, 0.02, 0.0], dtype=np.float32)


def make_agent(**kwargs: Any) -> AgentDeployment:
    kwargs.setdefault("policy", DummyCartPolePolicy())
    kwargs.setdefault("env", GymMazeEnv("CartPole-v1"))
    return AgentDeployment(**kwargs)


def test_errors_are_maze_errors() -> None:
    for error in (
        ConcurrentUseError,
        DeploymentOrderError,
        ObservationOutsideSpaceError,
        PolicyExecutionError,
        WrapperStackError,
    ):
        assert issubclass(error, MazeError)


def test_close_before_act() -> None:
    agent = make_agent()
    with pytest.raises(DeploymentOrderError, match=r"close\(\) before the episode's first act\(\)"):
        agent.close(STATE, 0.0, True, {})


def test_close_twice_and_act_after_close_need_reset() -> None:
    agent = make_agent()
    agent.act(STATE)
    agent.close(STATE, 1.0, True, {})
    with pytest.raises(DeploymentOrderError, match=r"close\(\) after the episode was closed. Call reset\(\)"):
        agent.close(STATE, 1.0, True, {})
    with pytest.raises(DeploymentOrderError, match=r"act\(\) after the episode was closed. Call reset\(\)"):
        agent.act(STATE)
    agent.reset()
    assert agent.act(STATE) in (0, 1)


@pytest.mark.parametrize("flags", [{"done": True}, {"terminated": True}, {"truncated": True}])
def test_act_on_a_final_state_points_to_close(flags: dict) -> None:
    agent = make_agent()
    agent.act(STATE)
    with pytest.raises(DeploymentOrderError, match=r"final state .* close\(maze_state"):
        agent.act(STATE, 1.0, **flags)
    agent.close(STATE, 1.0, True, {})  # the misuse changed nothing: the episode can still be closed


@pytest.mark.parametrize(
    ("state", "match"),
    [
        (np.array([9.0, 0.0, 0.0, 0.0], dtype=np.float32), r"\['observation'\] = 9 at index \(0,\) lies outside"),
        (np.array([0.0, np.nan, 0.0, 0.0], dtype=np.float32), r"= nan at index \(1,\) lies outside"),
        (np.zeros(5, dtype=np.float32), r"has shape \(5,\), but the space"),
        (np.zeros(4, dtype=np.complex64), r"has dtype complex64, which does not cast"),
    ],
)
def test_observation_outside_the_space(state: np.ndarray, match: str) -> None:
    agent = make_agent()
    with pytest.raises(ObservationOutsideSpaceError, match=match) as info:
        agent.act(state)
    assert "GymMazeEnv('CartPole-v1')" in str(info.value)
    with pytest.raises(DeploymentOrderError, match=r"earlier call of this episode failed .* Call reset\(\)"):
        agent.act(STATE)
    agent.reset()
    agent.act(STATE)


def test_float64_states_are_accepted() -> None:
    assert make_agent().act(STATE.astype(np.float64)) in (0, 1)


def test_a_state_the_stack_cannot_process() -> None:
    agent = make_agent(wrappers=NORMALIZED)
    with pytest.raises(WrapperStackError, match=r"raised ValueError: .* in reset\(\) on the maze_state") as info:
        agent.act(np.zeros(5, dtype=np.float32))  # normalization cannot broadcast 5 values with 4 statistics
    assert "ObservationNormalizationWrapper" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)


def test_policy_exception() -> None:
    class Broken(DummyCartPolePolicy):
        def compute_action(self, observation, maze_state=None, env=None, actor_id=None, deterministic=False):
            raise KeyError("no such head")

    agent = make_agent(policy=Broken())
    with pytest.raises(PolicyExecutionError, match=r"the policy Broken raised KeyError: 'no such head'") as info:
        agent.act(STATE)
    assert isinstance(info.value.__cause__, KeyError)
    with pytest.raises(DeploymentOrderError):
        agent.close(STATE, 1.0, True, {})


def test_policy_action_outside_the_action_space() -> None:
    class Wrong(DummyCartPolePolicy):
        def compute_action(self, observation, maze_state=None, env=None, actor_id=None, deterministic=False):
            return {"acton": 1}

    with pytest.raises(WrapperStackError, match=r"could not turn the policy's action \{'acton': 1\}"):
        make_agent(policy=Wrong()).act(STATE)


class FlipInStep(Wrapper):
    """Changes the action inside step() instead of in an action() method."""

    def step(self, action: Any) -> Any:
        return self.env.step({"action": 1 - action["action"]})


def test_a_wrapper_changing_actions_inside_step_is_caught() -> None:
    agent = make_agent(env=FlipInStep(GymMazeEnv("CartPole-v1")))
    agent.act(STATE)
    with pytest.raises(WrapperStackError, match=r"changes actions inside step\(\)") as info:
        agent.act(STATE, 1.0)
    assert "FlipInStep > GymMazeEnv('CartPole-v1')" in str(info.value)


def test_a_wrapper_stepping_on_its_own_is_caught() -> None:
    env = RandomResetWrapper.wrap(GymMazeEnv("CartPole-v1"), min_skip_steps=1, max_skip_steps=2)
    with pytest.raises(WrapperStackError, match=r"stepped the env on its own .* RandomResetWrapper"):
        make_agent(env=env).act(STATE)


def test_bad_stacks_and_configs() -> None:
    with pytest.raises(ConfigurationError, match=r"expected a MazeEnv or a config with _target_, got CartPoleEnv"):
        make_agent(env=gym.make("CartPole-v1").unwrapped)
    env = GymMazeEnv("CartPole-v1")
    make_agent(env=env)
    with pytest.raises(ConfigurationError, match=r"already serves another AgentDeployment"):
        make_agent(env=env)
    missing = {"ObservationNormalizationWrapper": {"default_statistics": None}}
    with pytest.raises(ConfigurationError, match=r"no statistics for the observations \['observation'\]"):
        make_agent(wrappers=missing)
    with pytest.raises(ConfigurationError, match=r"has no ObservationNormalizationWrapper"):
        make_agent(normalization_statistics={"observation": {"mean": 0.0, "std": 1.0}})
    with pytest.raises(ConfigurationError, match=r"num_candidates must be None or an int >= 1"):
        make_agent(num_candidates=0)
    with pytest.raises(ConfigurationError, match=r"unknown _target_"):
        make_agent(policy={"_target_": "maze.env.NoSuchPolicy"})


def test_normalization_statistics_from_a_mapping_and_a_file(tmp_path: Any) -> None:
    from maze.env.wrappers.normalization import save_normalization_statistics

    missing = {"ObservationNormalizationWrapper": {"default_statistics": None}}
    statistics = {"observation": {"mean": np.zeros(4), "std": np.ones(4)}}
    assert make_agent(wrappers=missing, normalization_statistics=statistics).act(STATE) in (0, 1)
    save_normalization_statistics(statistics, tmp_path / "statistics.npz")
    for source in (tmp_path / "statistics.npz", tmp_path):  # a file, or a directory holding statistics.npz
        assert make_agent(wrappers=missing, normalization_statistics=source).act(STATE) in (0, 1)
    with pytest.raises(FileNotFoundError, match=r"other.npz"):
        make_agent(wrappers=missing, normalization_statistics=tmp_path / "other.npz")


def test_concurrent_calls_on_one_deployment_raise_instead_of_corrupting() -> None:
    entered, release = threading.Event(), threading.Event()

    class Blocking(DummyCartPolePolicy):
        def compute_action(self, observation, maze_state=None, env=None, actor_id=None, deterministic=False):
            entered.set()
            release.wait(timeout=10)
            return {"action": 0}

    agent = make_agent(policy=Blocking())
    results: list[Any] = []
    worker = threading.Thread(target=lambda: results.append(agent.act(STATE)))
    worker.start()
    assert entered.wait(timeout=10)
    for call in (lambda: agent.act(STATE), lambda: agent.close(STATE, 1.0, True, {}), agent.reset):
        with pytest.raises(ConcurrentUseError, match=r"give each thread \(session\) its own AgentDeployment"):
            call()
    release.set()
    worker.join(timeout=10)
    assert results == [0]
    agent.close(STATE, 1.0, True, {})  # the episode of the first thread is intact
