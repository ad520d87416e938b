"""sac-local: worker processes act with broadcast policy copies; failures stop training and leave no process."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from checkpoint_test_support import training_state
from maze.env.errors import EnvWorkerError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.train.distributed import ActorFailedError
from maze.train.replay import SubprocDistributedWorkersWithBuffer
from sac_test_support import sac_config, set_up
from train_test_support import assert_no_process_left

LOCAL = {"backend": "local", "start_method": "fork"}


def stored_actions(workers: SubprocDistributedWorkersWithBuffer, start: int) -> np.ndarray:
    """The discrete actions of the buffer's transitions from ``start`` on (the buffer has not wrapped)."""
    return workers.replay_buffer._storage["actions"]["action"][start : len(workers.replay_buffer)]


def always_act(policy: Any, action: int) -> dict[str, dict[str, torch.Tensor]]:
    """Sets the CartPole policy's weights so that it picks ``action`` (almost surely); returns its state dict."""
    with torch.no_grad():
        for parameter in policy.parameters():
            parameter.zero_()
        bias = policy.networks[0].perception_blocks["action"].net.bias
        bias.copy_(torch.tensor([40.0, -40.0] if action == 0 else [-40.0, 40.0]))
    return policy.state_dict()


def worker_pids(workers: SubprocDistributedWorkersWithBuffer) -> list[int]:
    return [process.pid for process in workers.actors._processes]


def test_local_runner_workers_act_with_the_broadcast_policy_and_a_resumed_run_continues(tmp_path: Path) -> None:
    runner = set_up(tmp_path / "first", sac_config(n_epochs=1), **LOCAL)
    workers = runner.trainer.workers
    assert isinstance(workers, SubprocDistributedWorkersWithBuffer)
    assert len(workers.replay_buffer) == workers.env_steps == 32  # initial random transitions, in this process
    policy = runner.trainer.policy
    try:
        workers.broadcast_updated_policy(always_act(policy, 1))  # before start: the start copies the weights
        for _ in range(4):
            workers.collect_rollouts()
        assert set(stored_actions(workers, 32)) == {1}
        filled = len(workers.replay_buffer)
        time.sleep(0.5)  # the worker fills the queue (1 rollout) and waits with one more
        workers.broadcast_updated_policy(always_act(policy, 0))
        lags = []
        for _ in range(8):
            workers.collect_rollouts()
            lags.append(workers.policy_lag)
        actions = stored_actions(workers, filled)
        # The queued and the waiting rollout were acted with the old weights (one broadcast old);
        # every later one with the new weights.
        assert lags[:2] == [1, 1] and lags[-1] == 0, lags
        assert [int(action) for action in actions] == [1 if lag else 0 for lag in lags], (actions, lags)
        pids = worker_pids(workers)
        assert len(pids) == 1 and pids[0] != os.getpid()
    except BaseException:
        workers.close()
        raise
    runner.run()  # 10 more iterations; SAC.close() stops the worker
    assert_no_process_left(pids)
    saved = training_state(tmp_path / "first")
    assert saved["env_steps"] == 32 + 12 + 10

    resumed = set_up(tmp_path / "second", sac_config(n_epochs=2, input_dir=tmp_path / "first"), **LOCAL)
    refill = resumed.trainer.workers.stored_transitions()  # the buffer is not saved: it is filled anew
    assert refill >= 32 and resumed.trainer.epochs_done == 1
    assert resumed.trainer.env_steps == saved["env_steps"] + refill  # the refill's env steps count
    resumed.run()
    summary = json.loads((tmp_path / "second" / "training_summary.json").read_text())
    assert summary["epochs"] == 2 and summary["env_steps"] == saved["env_steps"] + refill + 10


def test_a_killed_worker_stops_training_with_one_error_and_no_process_is_left(tmp_path: Path) -> None:
    runner = set_up(tmp_path, sac_config(num_actors=2, rollout_evaluator=None), **LOCAL)
    workers = runner.trainer.workers
    try:
        workers.collect_rollouts()
        pids = worker_pids(workers)
        os.kill(pids[1], signal.SIGKILL)
        with pytest.raises(ActorFailedError, match=r"Actor 1 \(process \d+\) died with signal SIGKILL") as failure:
            for _ in range(100):
                workers.collect_rollouts()
        assert isinstance(failure.value, EnvWorkerError)
    finally:
        runner.trainer.close()
        runner.close()
    assert_no_process_left(pids)


def cartpole_failing_in_workers(name: str = "CartPole-v1") -> GymMazeEnv:
    """CartPole whose ``step`` raises in a worker process (the initial buffer is filled in the main process)."""
    env = GymMazeEnv(name)
    if multiprocessing.parent_process() is not None:

        def step(action: Any) -> Any:
            raise RuntimeError("the env broke in a worker")

        env.step = step
    return env


def test_an_env_error_in_a_worker_stops_the_run_with_its_traceback(tmp_path: Path) -> None:
    env = {"_target_": f"{__name__}.cartpole_failing_in_workers"}
    runner = set_up(tmp_path, sac_config(env=env, rollout_evaluator=None), **LOCAL)
    workers = runner.trainer.workers
    try:
        with pytest.raises(ActorFailedError) as failure:
            workers.collect_rollouts()
        pids = worker_pids(workers)
    finally:
        runner.trainer.close()
        runner.close()
    message = str(failure.value)
    assert message.startswith("Actor 0 failed; training stopped. Its traceback:")
    assert "Traceback (most recent call last)" in message and "RuntimeError: the env broke in a worker" in message
    assert len(pids) == 1
    assert_no_process_left(pids)
