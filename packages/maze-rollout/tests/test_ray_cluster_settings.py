"""The Ray pieces that need no running Ray: settings, the missing extra, restart counting, shipped input dirs."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from maze.env.errors import ConfigurationError
from maze.rollout import RayCluster, RayNotInstalledError, RayRolloutRunner, RolloutJob
from maze.rollout.ray_cluster import ActorRestarts
from maze.rollout.ray_rollout_actor import InputDirSnapshot

CARTPOLE = {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"}


@pytest.fixture
def without_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes ``import ray`` fail, as where the extra is not installed."""
    monkeypatch.setitem(sys.modules, "ray", None)


def test_the_ray_rollout_runner_without_ray_is_one_line_naming_the_extra(without_ray: None) -> None:
    with pytest.raises(RayNotInstalledError) as caught:
        RayRolloutRunner(n_episodes=2)
    message = str(caught.value)
    assert message.startswith("runner=ray needs Ray, which is not installed here: pip install -c ")
    assert "packages/maze-rollout[ray]'" in message and "\n" not in message


def test_without_an_address_a_local_ray_gets_this_machines_cpus_unless_ray_address_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    arguments = RayCluster(init={"num_cpus": 1}, runtime_env={"py_modules": ["/code/mine"]}).init_arguments()
    assert arguments == {
        "address": "local",
        "include_dashboard": False,
        "num_cpus": 1,
        "runtime_env": {"py_modules": ["/code/mine"]},
    }
    monkeypatch.setenv("RAY_ADDRESS", "ray://head:10001")
    assert RayCluster().init_arguments() == {"address": "ray://head:10001"}
    assert RayCluster(address="auto").init_arguments() == {"address": "auto"}


def test_actor_options_restart_actors_but_never_retry_their_calls() -> None:
    assert RayCluster(max_restarts=5).actor_options(num_cpus=1) == {
        "max_restarts": 5,
        "max_task_retries": 0,
        "num_cpus": 1,
    }


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"max_restarts": -1}, r"runner.max_restarts must be an int of at least 0"),
        ({"init": ["num_cpus"]}, r"runner.ray_init must be a mapping"),
        ({"address": 6379}, r"runner.ray_address must be an address string"),
    ],
)
def test_bad_ray_settings_name_the_key(arguments: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        RayCluster(**arguments)


class _Stopped(Exception):
    pass


def test_each_actor_death_counts_once_and_one_more_than_max_restarts_stops() -> None:
    restarts = ActorRestarts(1, _Stopped, lambda actor: f"Actor {actor}", "its work runs again")
    restarts.delivered(0, "first instance")
    running = restarts.generation(0)
    restarts.failed(0, running, ConnectionError())
    restarts.failed(0, running, ConnectionError())  # another call that was running: the same death
    restarts.delivered(0, "second instance")
    restarts.delivered(1, "other actor")
    assert restarts.total == 1
    with pytest.raises(_Stopped, match=r"^Actor 0 died 2 times, more than runner.max_restarts=1; the run stopped"):
        restarts.delivered(0, "third instance")  # it died again, between two calls


def test_a_lost_node_counts_its_actors_death_once_and_a_result_finished_before_it_says_nothing_of_the_restart() -> None:
    restarts = ActorRestarts(3, _Stopped, lambda actor: f"Actor {actor}", "its work is discarded")
    restarts.delivered(0, "first instance")
    before = restarts.generation(0)  # a call that finished before the node was lost
    restarts.node_lost(0)
    restarts.delivered(0, "first instance", before)
    assert restarts.restarting(0) and restarts.total == 1

    restarts.failed(0, before, ConnectionError())  # a call of the lost instance: the same death
    restarts.delivered(0, "second instance", restarts.generation(0))

    assert not restarts.restarting(0) and restarts.total == 1


def test_an_actor_on_a_node_without_the_input_dir_loads_the_policy_from_the_shipped_files(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "state_dict.pt").write_bytes(b"weights")
    (run_dir / "events.out.tfevents.1").write_bytes(b"not shipped")
    agent = {"_target_": "my.Policy", "state_dict_file": f"{run_dir}/state_dict.pt", "others": [f"{run_dir}x"]}
    job = RolloutJob(CARTPOLE, None, agent, 0, True, False, False, tmp_path, input_dir=run_dir)
    snapshot = InputDirSnapshot.of(run_dir)
    assert set(snapshot.files) == {"state_dict.pt"}
    assert snapshot.localize(job) is job  # the directory exists here

    shutil.rmtree(run_dir)  # as on another node
    local = snapshot.localize(job)

    assert local.input_dir != run_dir and (local.input_dir / "state_dict.pt").read_bytes() == b"weights"
    assert local.agent["state_dict_file"] == f"{local.input_dir}/state_dict.pt"
    assert local.agent["others"] == [f"{run_dir}x"]  # another directory's path stays
    shutil.rmtree(local.input_dir)
