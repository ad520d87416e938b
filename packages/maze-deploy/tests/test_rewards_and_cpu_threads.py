"""Rewards that are no finite numbers are refused by name; a deployment limits torch to one thread by default."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from deploy_test_support import RecordingWriter
from maze.deploy import AgentDeployment, InvalidRewardError
from maze.env import DummyCartPolePolicy, GymMazeEnv
from maze.env.errors import ConfigurationError

STATE = np.array([0.01, 0.0, 0.02, 0.0], dtype=np.float32)
BAD_REWARDS = [float("nan"), float("-inf"), np.float32("nan"), np.array([1.0, np.inf]), "1.0", None, b"1"]


def make_agent(**kwargs: Any) -> AgentDeployment:
    return AgentDeployment(policy=DummyCartPolePolicy(), env=GymMazeEnv("CartPole-v1"), **kwargs)


@pytest.fixture
def torch_threads() -> Iterator[Any]:
    """The torch module (the test is skipped without it), its thread count restored after the test."""
    torch = pytest.importorskip("torch")  # maze-deploy's torch extra
    threads = torch.get_num_threads()
    yield torch
    torch.set_num_threads(threads)


@pytest.mark.parametrize("reward", BAD_REWARDS, ids=repr)
@pytest.mark.parametrize("method", ["act", "close"])
def test_a_reward_that_is_no_finite_number_is_refused_by_value(
    reward: Any, method: str, recorder: RecordingWriter
) -> None:
    agent = make_agent()
    agent.act(STATE)
    kind = "is not finite" if isinstance(reward, (float, np.floating, np.ndarray)) else "is not a number"
    with pytest.raises(InvalidRewardError, match=re.escape(f"{method}() got the reward {reward!r}") + f".*{kind}"):
        getattr(agent, method)(STATE, reward, False, {})

    agent.act(STATE, 1.0)  # nothing was consumed: the episode goes on with a valid reward
    agent.close(STATE, np.float32(2.0), True, {})
    assert recorder.values("deployment", "BaseEnvEvents", "reward", "mean") == [3.0]  # the return of the episode


def test_the_first_acts_reward_is_ignored_and_not_checked() -> None:
    assert make_agent().act(STATE, None) in (0, 1)


def test_torch_runs_on_one_thread_by_default_and_the_argument_overrides_it(torch_threads: Any) -> None:
    torch = torch_threads
    torch.set_num_threads(3)
    make_agent()
    assert torch.get_num_threads() == 1
    make_agent(cpu_threads=2)
    assert torch.get_num_threads() == 2
    make_agent(cpu_threads=None)
    assert torch.get_num_threads() == 2


@pytest.mark.parametrize("threads", [0, -1, 1.5, "2", True])
def test_cpu_threads_must_be_a_positive_integer(threads: Any) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(f"cpu_threads={threads!r}")):
        make_agent(cpu_threads=threads)


def test_a_deployment_without_a_torch_policy_does_not_import_torch() -> None:
    code = (
        "import sys; from maze.deploy import AgentDeployment; from maze.env import DummyCartPolePolicy, GymMazeEnv; "
        "AgentDeployment(policy=DummyCartPolePolicy(), env=GymMazeEnv('CartPole-v1')); print('torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_the_deployed_env_stack_keeps_its_repr() -> None:
    """The core env is replaced by the external one; the gymnasium env's id still names the stack."""
    assert repr(make_agent().env) == "LogStatsWrapper(GymMazeEnv('CartPole-v1'))"
