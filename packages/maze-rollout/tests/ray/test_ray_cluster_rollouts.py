"""Rollouts on the simulated two-node cluster: a user's env module, not on the worker node, reaches it by runtime_env.

The session's cluster and the user's module come from the plugin ray_session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import ray
from maze.env.utils.seeding import MazeSeeding
from maze.rollout import RayRolloutRunner, SequentialRolloutRunner


def test_rollouts_on_the_cluster_give_the_sequential_statistics(
    ray_cluster: Any, user_module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"_target_": f"{user_module.name}.make_env", "name": "CartPole-v1"}
    agent = {"_target_": "maze.env.agent.random_policy.RandomPolicy"}
    ray.shutdown()  # the runner connects to the cluster with the job's runtime env
    tables = []
    for name, runner in (
        ("sequential", SequentialRolloutRunner(n_episodes=8, max_episode_steps=50)),
        (
            "ray",
            RayRolloutRunner(
                n_workers=2,
                n_episodes=8,
                max_episode_steps=50,
                ray_address=ray_cluster.address,
                runtime_env={"py_modules": [str(user_module)]},
            ),
        ),
    ):
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        runner.seeding = MazeSeeding(env_seed=5, agent_seed=6)
        runner.run_with(env, None, agent)
        tables.append(dict(runner.last_stats))

    assert tables[0] == tables[1]
    assert len(list((tmp_path / "ray" / "trajectory_data").glob("*.traj.npz"))) == 8
