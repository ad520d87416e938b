"""The simulated two-node cluster: a user's own env module, not installed on the worker node, reaches it by runtime_env."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path
from typing import Any

import pytest
import ray
from maze.env.utils.seeding import MazeSeeding
from maze.rollout import RayRolloutRunner, SequentialRolloutRunner
from maze.train.trainers.es.es_ray_runner import ESRayRunner
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
from ray_runs import CARTPOLE_TRAINING, set_up_job

USER_MODULE = "my_maze_project"
"""The user's own package (written into a temporary directory; on the driver's ``sys.path`` only)."""


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The directory of the user's package ``my_maze_project`` with an env factory, importable here only."""
    package = tmp_path / "user_code" / USER_MODULE
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        textwrap.dedent(
            '''
            """A user's project: its env factory."""
            from maze.env.gym_adapter.gym_maze_env import GymMazeEnv


            def make_env(name: str, render_mode=None) -> GymMazeEnv:
                return GymMazeEnv(name, render_mode=render_mode)
            '''
        )
    )
    monkeypatch.syspath_prepend(str(package.parent))
    return package


@ray.remote(num_cpus=0)
def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _worker_node(cluster: Any) -> str:
    (node,) = cluster.worker_nodes
    return node.node_id


def test_a_user_env_module_trains_on_the_worker_node_through_runtime_env(
    ray_cluster: Any, user_module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_worker_node = NodeAffinitySchedulingStrategy(_worker_node(ray_cluster), soft=False)
    assert not ray.get(_importable.options(scheduling_strategy=on_worker_node).remote(USER_MODULE))

    overrides = (
        *CARTPOLE_TRAINING,
        f"env._target_={USER_MODULE}.make_env",
        "algorithm=es",
        "algorithm.n_epochs=2",
        "algorithm.n_rollouts_per_update=4",
        "runner=ray",
        "runner.n_train_workers=2",  # one per node: each node has one CPU
        f"runner.ray_address={ray_cluster.address}",
        f"runner.runtime_env={{py_modules: [{user_module}]}}",
        "runner.n_eval_rollouts=2",
        "runner.shared_noise_table_size=200000",
        "seeding.env_base_seed=1",
        "seeding.agent_base_seed=2",
    )
    ray.shutdown()  # as from the command line: the runner connects to the cluster with the job's runtime env
    runner = set_up_job("conf_train", overrides, tmp_path / "run", monkeypatch)
    assert isinstance(runner, ESRayRunner)

    runner.run()

    assert runner.trainer.epochs_done == 2 and runner.trainer.total_episodes >= 8
    assert (tmp_path / "run" / "state_dict.pt").is_file()


def test_rollouts_on_the_cluster_give_the_sequential_statistics(
    ray_cluster: Any, user_module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"_target_": f"{USER_MODULE}.make_env", "name": "CartPole-v1"}
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
