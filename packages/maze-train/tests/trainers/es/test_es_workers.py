"""ES with worker processes: one noise table in memory, crashed workers stop the run clearly, no worker outlives a run."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

import numpy as np
import pytest
from es_test_support import CARTPOLE, NOISE_TABLE_SIZE, es_job_config, set_up_es, shm_mappings, status_kib
from maze.env.errors import EnvWorkerError, MazeError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.perception.models.spaces_config import SpacesConfig
from maze.train.runners.env_factory import EnvFactory
from maze.train.trainers.es import (
    ESSubprocDistributedRollouts,
    ESWorkerFactory,
    SharedNoiseTable,
    TorchPolicyFactory,
    get_flat_parameters,
)
from train_test_support import small_model_config

TABLE_FLOATS = 4_000_000
"""16 MB: large against a worker's private growth from mapping it (must be ~0), small for CI."""


def alive(pid: int) -> bool:
    """The process exists and is no zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def worker_factory(table: SharedNoiseTable, policy_wrapper: object = None) -> ESWorkerFactory:
    spaces = SpacesConfig.from_env(GymMazeEnv("CartPole-v1"))
    policy_factory = TorchPolicyFactory(small_model_config("template", "cartpole", critic=False), spaces)
    return ESWorkerFactory(EnvFactory(CARTPOLE), policy_factory, table, policy_wrapper, torch_threads=1)


def test_two_workers_map_the_one_noise_table_instead_of_copying_it() -> None:
    table = SharedNoiseTable(TABLE_FLOATS, seed=3)
    table_kib = TABLE_FLOATS * 4 // 1024
    rollouts = ESSubprocDistributedRollouts(worker_factory(table), seeds=[1, 2], start_method="forkserver")
    try:
        theta = get_flat_parameters(worker_factory(table).policy_factory()).numpy()
        stream = rollouts.generate_rollouts(theta, 0.02, 50)
        results = [next(stream) for _ in range(4)]
        stream.close()
        assert all(result.returns.shape == (2,) and not result.aborted for result in results)
        pids = [process.pid for process in rollouts.processes]
        assert len(set(pids)) == 2 and os.getpid() not in pids
        owner = shm_mappings(os.getpid(), table.name)
        assert len(owner) == 1 and owner[0]["Rss"] >= table_kib  # the master wrote every page once
        total_pss = sum(mapping["Pss"] for mapping in owner)
        for pid in pids:
            mappings = shm_mappings(pid, table.name)
            assert len(mappings) == 1, f"worker {pid} does not map the shared table"
            assert mappings[0]["Size"] >= table_kib
            assert mappings[0]["Private_Clean"] + mappings[0]["Private_Dirty"] == 0
            total_pss += mappings[0]["Pss"]
            assert status_kib(pid, "RssAnon") < status_kib(os.getpid(), "RssAnon") + table_kib  # no private copy
        assert total_pss <= table_kib + 64  # all processes together hold the table once
    finally:
        rollouts.close()
        table.close()
    assert not any(alive(pid) for pid in pids)


def test_a_crashing_worker_stops_the_run_with_its_traceback_and_no_worker_survives(tmp_path: Path) -> None:
    runner = set_up_es(
        tmp_path,
        es_job_config(policy_wrapper={"_target_": "es_test_support.CrashingWrapper"}, n_epochs=3),
        backend="local",
        n_train_workers=2,
        n_eval_workers=0,
    )
    with pytest.raises(MazeError, match=r"(?s)RuntimeError: boom inside the ES worker") as error:
        runner.run()
    assert isinstance(error.value, EnvWorkerError)
    assert "Traceback" in str(error.value) and "compute_action" in str(error.value)
    assert multiprocessing.active_children() == []
    assert not Path("/dev/shm", runner.shared_noise.name).exists()


def test_a_killed_worker_stops_the_run_with_one_clear_error() -> None:
    table = SharedNoiseTable(100_000, seed=3)
    rollouts = ESSubprocDistributedRollouts(worker_factory(table), seeds=[1, 2], start_method="forkserver")
    pids = [process.pid for process in rollouts.processes]
    try:
        os.kill(pids[1], signal.SIGKILL)
        theta = np.zeros(get_flat_parameters(worker_factory(table).policy_factory()).numel(), dtype=np.float32)
        with pytest.raises(EnvWorkerError, match="env 1"):
            list(rollouts.generate_rollouts(theta, 0.02, 20))
    finally:
        rollouts.close()
        table.close()
    assert not any(alive(pid) for pid in pids)


def test_local_runner_trains_with_worker_processes_and_leaves_none_behind(tmp_path: Path, recorder) -> None:
    runner = set_up_es(tmp_path, es_job_config(), backend="local", n_train_workers=2, n_eval_workers=1)
    runner.run()
    assert len(recorder.values("train", "ESEvents", "total_step_count")) == 2
    assert len(recorder.values("eval", "BaseEnvEvents", "reward", "mean")) == 2
    assert multiprocessing.active_children() == []
    assert (tmp_path / "state_dict.pt").is_file()


def test_a_worker_seeking_a_position_plays_the_pair_of_that_position_of_its_stream() -> None:
    table = SharedNoiseTable(NOISE_TABLE_SIZE, seed=3)
    try:
        played, resumed = worker_factory(table)(), worker_factory(table)()
        theta = get_flat_parameters(played.torch_policy).numpy()
        played.reset(seed=5)
        stream = [played.generate_training_pair(theta, 0.02, 30) for _ in range(4)]
        resumed.reset(seed=5)
        for position in (2, 0, 3, 1):  # ahead and back again, as a restarted or a replaying worker seeks
            resumed.seek(position)
            pair = resumed.generate_training_pair(theta, 0.02, 30)
            assert pair.noise_index == stream[position].noise_index
            np.testing.assert_array_equal(pair.returns, stream[position].returns)
            assert resumed.position == position + 1
    finally:
        table.close()
