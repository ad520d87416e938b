import os
import signal
import time
from functools import partial

import numpy as np
import pytest
from gymnasium import spaces
from maze.env import GymMazeEnv
from maze.env.errors import ConfigurationError, EnvWorkerError, InvalidActionError
from maze.env.testing.fake_envs import build_multi_agent_env, build_multi_step_env
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv
from maze.env.wrappers.wrapper import Wrapper

CARTPOLE = partial(GymMazeEnv, "CartPole-v1")


def sample_actions(space: spaces.Dict, n_envs: int, rng: np.random.Generator) -> dict:
    """A batch of random actions for the Discrete and Box heads of the test envs."""
    actions = {}
    for key, head in space.spaces.items():
        if isinstance(head, spaces.Discrete):
            actions[key] = rng.integers(0, head.n, size=n_envs)
        else:
            actions[key] = rng.uniform(head.low, head.high, size=(n_envs, *head.shape)).astype(head.dtype)
    return actions


def rollout(envs, n_steps: int) -> list:
    """Records observations, rewards, flags, actors and final observations under seeded random actions."""
    rng = np.random.default_rng(5)
    observations, _ = envs.reset(seed=11)
    record = [(observations, envs.actor_ids())]
    for _ in range(n_steps):
        observations, rewards, terminated, truncated, infos = envs.step(
            sample_actions(envs.action_space, envs.n_envs, rng)
        )
        finals = [info.get("final_observation") for info in infos]
        record.append((observations, rewards, terminated, truncated, finals, envs.actor_ids()))
    return record


def assert_same_records(left: list, right: list) -> None:
    assert len(left) == len(right)
    for a, b in zip(left, right, strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(x, dict):
                assert x.keys() == y.keys()
                for key in x:
                    np.testing.assert_array_equal(x[key], y[key])
            elif isinstance(x, list) and x and isinstance(x[0], (dict, type(None))):
                for final_x, final_y in zip(x, y, strict=True):
                    assert (final_x is None) == (final_y is None)
                    if final_x is not None:
                        assert_same_records([(final_x,)], [(final_y,)])
            else:
                np.testing.assert_array_equal(x, y)


def assert_reaped(processes) -> None:
    """The workers exited and were waited for: none is left running or as a zombie."""
    for process in processes:
        assert process.exitcode is not None
        if os.path.exists(f"/proc/{process.pid}/stat"):
            with open(f"/proc/{process.pid}/stat") as stat:
                assert stat.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("start_method", ["forkserver", "spawn", "fork"])
def test_cartpole_trajectories_match_the_sequential_env(start_method):
    with SubprocVectorEnv([CARTPOLE, lambda: GymMazeEnv("CartPole-v1")], start_method=start_method) as envs:
        processes = envs.processes
        assert len(processes) == 2 and all(p.is_alive() for p in processes)
        assert len({p.pid for p in processes} | {os.getpid()}) == 3
        record = rollout(envs, 60)
    assert_reaped(processes)
    expected = rollout(SequentialVectorEnv([CARTPOLE] * 2), 60)
    assert_same_records(record, expected)
    assert sum(r[2].sum() + r[3].sum() for r in expected[1:]) >= 2  # the rollout crossed auto-resets


@pytest.mark.parametrize(
    "factory", [partial(build_multi_step_env, max_steps=3), partial(build_multi_agent_env, n_agents=2, max_steps=3)]
)
def test_structured_trajectories_match_the_sequential_env(factory):
    with SubprocVectorEnv([factory] * 2, start_method="fork") as envs:
        assert envs.observation_spaces_dict == factory().observation_spaces_dict
        record = rollout(envs, 24)
    expected = rollout(SequentialVectorEnv([factory] * 2), 24)
    assert_same_records(record, expected)
    assert any(r[3].any() for r in expected[1:])  # truncation auto-reset happened


def test_env_errors_keep_their_maze_kind_with_the_env_index_and_remote_traceback():
    envs = SubprocVectorEnv([CARTPOLE] * 2, start_method="fork")
    envs.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"env 1 of the SubprocVectorEnv raised during step\(\)") as caught:
        envs.step({"action": np.array([0, 7])})  # the same kind as the sequential env raises
    assert "Traceback (most recent call last)" in str(caught.value) and "InvalidActionError" in str(caught.value)
    envs.step({"action": np.array([0, 1])})  # the replies stayed in sync: the env keeps working
    with pytest.raises(EnvWorkerError, match=r"(?s)env 1 .* during reset\(\).*Seed must be"):
        envs.reset(seed=[0, -1])  # a non-maze error (gymnasium's) becomes an EnvWorkerError
    with pytest.raises(InvalidActionError, match="env 1 of the SequentialVectorEnv raised during step"):
        with SequentialVectorEnv([CARTPOLE] * 2) as sequential:
            sequential.reset(seed=0)
            sequential.step({"action": np.array([0, 7])})
    envs.close()
    assert_reaped(envs.processes)


def _raise_configuration_error():
    raise ConfigurationError("bad env config")


class _StatisticsWrapper(Wrapper):
    """Counts its steps and reports them (with its process id); one result cannot be pickled."""

    def __init__(self, env):
        super().__init__(env)
        self.steps = 0

    def step(self, action):
        self.steps += 1
        return self.env.step(action)

    def statistics(self, scale=1):
        return {"steps": self.steps * scale, "pid": os.getpid()}

    def unpicklable(self):
        return lambda: None


def _statistics_cartpole(index=0):
    env = _StatisticsWrapper(GymMazeEnv("CartPole-v1"))
    env.steps = index * 10
    return env


def test_call_runs_in_the_workers_and_returns_results_in_env_order():
    factories = [partial(_statistics_cartpole, index) for index in range(3)]
    with SubprocVectorEnv(factories, start_method="fork") as envs:
        envs.reset(seed=0)
        envs.step({"action": np.array([0, 1, 0])})
        results = envs.call("statistics", scale=2)
        assert [result["steps"] for result in results] == [2, 22, 42]
        assert [result["pid"] for result in results] == [process.pid for process in envs.processes]
        assert envs.call("get_env_time") == [1, 1, 1]
        with pytest.raises(EnvWorkerError, match=r"(?s)env 0 .* during call\(\).*no_such_method"):
            envs.call("no_such_method")
        with pytest.raises(EnvWorkerError, match=r"(?s)env 0 .* during call\(\).*pickle"):
            envs.call("unpicklable")
        assert envs.call("get_env_time") == [1, 1, 1]  # still in sync after the errors
    sequential = SequentialVectorEnv(factories)
    sequential.reset(seed=0)
    sequential.step({"action": np.array([0, 1, 0])})
    assert sequential.call("statistics", scale=2) == [{"steps": 2 * s, "pid": os.getpid()} for s in (1, 11, 21)]


def test_killed_worker_is_reported_quickly():
    envs = SubprocVectorEnv([CARTPOLE] * 2, start_method="fork")
    envs.reset(seed=0)
    os.kill(envs.processes[0].pid, signal.SIGKILL)
    start = time.perf_counter()
    with pytest.raises(EnvWorkerError, match=r"env 0 .* died during step\(\) \(exit code -9, killed by SIGKILL\)"):
        envs.step({"action": np.array([0, 1])})
    assert time.perf_counter() - start < 2.0
    envs.close()
    assert_reaped(envs.processes)


def test_failures_while_building_the_envs():
    with pytest.raises(EnvWorkerError, match=r"env 1 .* died during init\(\) \(exit code 3\)"):
        SubprocVectorEnv([CARTPOLE, partial(os._exit, 3)], start_method="fork")
    with pytest.raises(ConfigurationError, match=r"(?s)during init\(\).*NoSuchEnv"):  # an unknown id keeps its kind
        SubprocVectorEnv([CARTPOLE, partial(GymMazeEnv, "NoSuchEnv-v0")], start_method="fork")
    with pytest.raises(ConfigurationError, match=r"(?s)env 1 of the SubprocVectorEnv raised during init\(\).*bad env"):
        SubprocVectorEnv([CARTPOLE, _raise_configuration_error], start_method="fork")


def test_calls_after_close_fail_clearly():
    envs = SubprocVectorEnv([CARTPOLE], start_method="fork")
    envs.close()
    envs.close()
    with pytest.raises(EnvWorkerError, match="after close"):
        envs.reset()
