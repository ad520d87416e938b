"""ES on the simulated two-node cluster: a user's env module, not installed on the worker node, reaches it by runtime_env.

The session's cluster and the user's module come from the plugin ray_session (maze-rollout's Ray tests,
where the cluster's rollouts are tested too).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
import ray
from maze.train.backends.ray import RayBackend
from maze.train.trainers.es.runner import ESRunner
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
from ray_runs import CARTPOLE_TRAINING, set_up_job


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
    assert not ray.get(_importable.options(scheduling_strategy=on_worker_node).remote(user_module.name))

    overrides = (
        *CARTPOLE_TRAINING,
        f"env._target_={user_module.name}.make_env",
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
    assert isinstance(runner, ESRunner) and isinstance(runner.backend, RayBackend)

    runner.run()

    assert runner.trainer.epochs_done == 2 and runner.trainer.total_episodes >= 8
    assert (tmp_path / "run" / "state_dict.pt").is_file()
