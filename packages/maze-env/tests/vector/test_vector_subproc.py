import os
import signal
import time
from functools import partial

import numpy as np
import pytest
from gymnasium import spaces
from maze.env import GymMazeEnv
from maze.env.errors import EnvWorkerError
from maze.env.testing.fake_envs import build_multi_agent_env, build_multi_step_env
from maze.env.vector.sequential import SequentialVectorEnv
from maze.env.vector.subproc import SubprocVectorEnv

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


def test_env_exception_becomes_env_worker_error_with_the_remote_traceback():
    envs = SubprocVectorEnv([CARTPOLE] * 2, start_method="fork")
    envs.reset(seed=0)
    with pytest.raises(EnvWorkerError, match=r"env 1 .* during step\(\)") as caught:
        envs.step({"action": np.array([0, 7])})
    assert "Traceback (most recent call last)" in str(caught.value) and "InvalidActionError" in str(caught.value)
    envs.step({"action": np.array([0, 1])})  # the replies stayed in sync: the env keeps working
    envs.close()
    assert_reaped(envs.processes)


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
    with pytest.raises(EnvWorkerError, match=r"(?s)during init\(\).*NoSuchEnv"):
        SubprocVectorEnv([CARTPOLE, partial(GymMazeEnv, "NoSuchEnv-v0")], start_method="fork")


def test_calls_after_close_fail_clearly():
    envs = SubprocVectorEnv([CARTPOLE], start_method="fork")
    envs.close()
    envs.close()
    with pytest.raises(EnvWorkerError, match="after close"):
        envs.reset()
