"""runner=ray rollouts: the statistics and outputs of the sequential runner; a killed actor or a lost node loses and doubles nothing."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import ray_test_envs
from maze.env.log_events.log_events_writer import read_event_log_tsv
from maze.env.trajectory_recording import episode_id_of
from maze.env.utils.seeding import MazeSeeding
from maze.rollout import RayRolloutRunner, RolloutRunner, RolloutWorkerError, SequentialRolloutRunner

CARTPOLE = {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"}
RANDOM_POLICY = {"_target_": "maze.env.agent.random_policy.RandomPolicy"}
REWARD_LOG = Path("event_logs") / "BaseEnvEvents.reward.tsv"


def _roll_out(runner: RolloutRunner, env: Any, run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """Runs ``runner`` in ``run_dir`` with fixed base seeds; returns its statistics table."""
    run_dir.mkdir()
    monkeypatch.chdir(run_dir)
    runner.seeding = MazeSeeding(env_seed=7, agent_seed=11)
    runner.run_with(env, None, RANDOM_POLICY)
    return dict(runner.last_stats)


def _episode_ids(run_dir: Path) -> list[str]:
    """The episode ids of the trajectory files and of the reward event log rows (one row per step)."""
    files = sorted(episode_id_of(path) for path in (run_dir / "trajectory_data").glob("*.traj.npz"))
    assert files == sorted({row.episode_id for row in read_event_log_tsv(run_dir / REWARD_LOG)})
    return files


def test_ray_rollouts_give_the_statistics_and_outputs_of_the_sequential_runner(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = {"n_episodes": 12, "max_episode_steps": 60}
    sequential = _roll_out(SequentialRolloutRunner(**settings), CARTPOLE, tmp_path / "sequential", monkeypatch)
    on_ray = _roll_out(RayRolloutRunner(n_workers=2, **settings), CARTPOLE, tmp_path / "ray", monkeypatch)

    assert on_ray == sequential
    assert len(_episode_ids(tmp_path / "ray")) == len(_episode_ids(tmp_path / "sequential")) == 12
    steps = [len(read_event_log_tsv(tmp_path / name / REWARD_LOG)) for name in ("ray", "sequential")]
    assert steps[0] == steps[1]


def _kill_an_actor_mid_run(runner: RayRolloutRunner, ray: Any, run_dir: Path, killed: list[int]) -> None:
    """Kills the process of the runner's first actor once two episodes were written (others are running)."""
    deadline = time.monotonic() + 120
    while len(list(run_dir.glob("trajectory_data/*.traj.npz"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(ray.get(runner.actors[0].pid.remote()), signal.SIGKILL)
    killed.append(1)


def test_killing_a_rollout_actor_loses_no_episode_and_counts_none_twice(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = {"n_episodes": 16, "max_episode_steps": 40}
    reference = _roll_out(SequentialRolloutRunner(**settings), CARTPOLE, tmp_path / "sequential", monkeypatch)
    runner = RayRolloutRunner(n_workers=2, max_restarts=2, **settings)
    killed: list[int] = []
    killer = threading.Thread(
        target=_kill_an_actor_mid_run, args=(runner, ray_local, tmp_path / "ray", killed), daemon=True
    )
    killer.start()
    on_ray = _roll_out(runner, ray_test_envs.slow_cartpole, tmp_path / "ray", monkeypatch)
    killer.join()

    assert killed and runner.restarts == 1
    assert on_ray == reference  # the slow env only sleeps: same episodes, each counted once
    assert len(_episode_ids(tmp_path / "ray")) == 16


def test_an_actor_dying_more_often_than_max_restarts_is_one_clear_error(
    ray_local: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = RayRolloutRunner(n_workers=1, max_restarts=0, n_episodes=40, max_episode_steps=40)
    killer = threading.Thread(
        target=_kill_an_actor_mid_run, args=(runner, ray_local, tmp_path / "ray", []), daemon=True
    )
    killer.start()
    with pytest.raises(RolloutWorkerError, match=r"died 1 times, more than runner.max_restarts=0"):
        _roll_out(runner, ray_test_envs.slow_cartpole, tmp_path / "ray", monkeypatch)
    killer.join()


def _remove_the_worker_node_mid_run(cluster: Any, run_dir: Path, removed: list[int]) -> None:
    """Removes the cluster's worker node (with the actor on it) once two episodes were written."""
    deadline = time.monotonic() + 120
    while len(list(run_dir.glob("trajectory_data/*.traj.npz"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    (node,) = cluster.worker_nodes
    cluster.remove_node(node)
    removed.append(1)


def test_losing_a_node_mid_run_loses_no_episode_and_counts_none_twice(
    ray_cluster: Any, ray_connections: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One actor per 1-CPU node; the worker node dies mid-run: the head node's actor runs what was left."""
    settings = {"n_episodes": 12, "max_episode_steps": 40}
    reference = _roll_out(SequentialRolloutRunner(**settings), CARTPOLE, tmp_path / "sequential", monkeypatch)
    runner = RayRolloutRunner(n_workers=2, max_restarts=2, **settings)
    removed: list[int] = []
    remover = threading.Thread(
        target=_remove_the_worker_node_mid_run, args=(ray_cluster, tmp_path / "ray", removed), daemon=True
    )
    remover.start()
    try:
        on_ray = _roll_out(runner, ray_test_envs.slow_cartpole, tmp_path / "ray", monkeypatch)
    finally:
        remover.join()
        if not ray_cluster.worker_nodes:  # the next cluster tests need their worker node again
            ray_cluster.add_node(num_cpus=1, temp_dir=str(ray_connections.temp_dir))
            ray_cluster.wait_for_nodes()

    assert removed and runner.restarts == 1
    assert on_ray == reference
    assert len(_episode_ids(tmp_path / "ray")) == 12
