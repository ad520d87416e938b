"""ES on Ray under faults: a killed worker or a lost node changes nothing; a cluster without room degrades or stops.

A worker killed after the first iteration, or one whose node is lost and replaced, resumes its
pair stream when Ray restarts it: the run trains exactly the parameters, with exactly the env
steps, of the same workers in one process (the reference of test_ray_es). A lost node with no
room left for the restart leaves the run with the other worker (a warning every iteration),
which then trains exactly as the in-process workers without the lost one (the error when no
worker is left is tested without Ray, in maze-train). Every run is guarded by a thread: none
may hang.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import ray
from maze.train.distributed.es.ray_rollouts import ESRayDistributedRollouts
from maze.train.distributed.es.rollouts import ESDistributedRollouts, ESRolloutResult
from maze.train.distributed.es.vector_rollouts import ESVectorDistributedRollouts
from ray_runs import (
    finished_within,
    kill_actor_in_the_learner,
    once_in_the_learner,
    remove_the_worker_node,
    replaced_node_loss,
    restore_the_worker_node,
    set_up_job,
)
from test_ray_es import ES_BUDGET, N_WORKERS, InProcessWorkers

ON_RAY = (*ES_BUDGET, "runner=ray", f"runner.n_train_workers={N_WORKERS}")
"""The ES job of test_ray_es on Ray: three iterations of two rounds of the two workers."""

RUN_LIMIT_S = 240
"""A run that takes longer hangs (a fault-free one takes seconds)."""

DEGRADED = "Warning: ES trains with 1 of 2 workers"


class InProcessWorkersLosingOne(InProcessWorkers):
    """The reference of a run whose worker ``lost`` delivers nothing from the second iteration on."""

    lost = 0
    """Set by the test: the worker on the lost node."""

    def create_distributed_rollouts(self) -> ESDistributedRollouts:
        """The in-process workers, less the lost one from the second iteration on."""
        return _WithoutOneWorker(super().create_distributed_rollouts(), lambda: self.trainer.epochs_done, self.lost)


class _WithoutOneWorker(ESDistributedRollouts):
    """Rounds of in-process workers without worker ``lost`` from the second iteration on."""

    def __init__(self, rollouts: ESVectorDistributedRollouts, epochs_done: Callable[[], int], lost: int) -> None:
        self.rollouts = rollouts
        self.epochs_done = epochs_done
        self.lost = lost

    def generate_rollouts(self, *arguments: Any) -> Iterator[ESRolloutResult]:
        """The rounds of the workers; those of the lost one missing from the second iteration on."""
        while True:
            results = self.rollouts.vector_env.call("generate_training_pair", *arguments)
            if self.epochs_done() >= 1:
                del results[self.lost]
            yield from results

    def close(self) -> None:
        """Closes the workers."""
        self.rollouts.close()


def _trained(runner: Any, meanwhile: Callable[[], Any] = lambda: None) -> tuple[np.ndarray, int]:
    """The parameters and env steps of the runner's run (guarded against a hang; see ``finished_within``)."""
    finished_within(RUN_LIMIT_S, runner.run, meanwhile)
    return runner.trainer.theta.numpy().copy(), runner.trainer.total_steps


def _in_process(root: Path, monkeypatch: pytest.MonkeyPatch, runner: str = "test_ray_es.InProcessWorkers") -> Any:
    return set_up_job("conf_train", (*ES_BUDGET, "runner=dev", f"runner._target_={runner}"), root, monkeypatch)


def _on_ray(root: Path, monkeypatch: pytest.MonkeyPatch, *overrides: str) -> tuple[Any, list[ESRayDistributedRollouts]]:
    """The Ray job and the list that receives its rollouts when the run builds them."""
    runner = set_up_job("conf_train", (*ON_RAY, *overrides), root, monkeypatch)
    made: list[ESRayDistributedRollouts] = []
    create = runner.create_distributed_rollouts
    runner.create_distributed_rollouts = lambda: made.append(create()) or made[-1]
    return runner, made


def _before_second_iteration(trainer: Any, action: Callable[[], Any]) -> list[Any]:
    """Makes the trainer call ``action()`` once, when it starts to collect its second iteration; returns its result."""
    return once_in_the_learner(trainer, "_collect", lambda: trainer.epochs_done == 1, action)


@pytest.fixture(scope="module")
def fault_free(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, int]:
    """The parameters and env steps of the ES job with its workers in this process."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        return _trained(_in_process(tmp_path_factory.mktemp("fault_free") / "run", monkeypatch))


def test_a_killed_es_worker_resumes_its_stream_and_the_run_trains_the_same_parameters(
    ray_local: Any, fault_free: tuple[np.ndarray, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner, made = _on_ray(tmp_path / "ray", monkeypatch)
    killed = kill_actor_in_the_learner(
        ray_local,
        runner.trainer,
        "_collect",
        lambda: made[0].workers[1],
        lambda: runner.trainer.epochs_done == 1,
        False,
    )

    parameters, env_steps = _trained(runner)

    assert killed and made[0].restarts.total == 1
    np.testing.assert_array_equal(parameters, fault_free[0])
    assert env_steps == fault_free[1]


def test_a_lost_and_replaced_node_changes_nothing_in_es_training(
    ray_cluster: Any,
    ray_connections: Any,
    fault_free: tuple[np.ndarray, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One worker per 1-CPU node; the worker node dies after the first iteration and a new node joins."""
    runner, made = _on_ray(tmp_path / "ray", monkeypatch)
    remove, replace = replaced_node_loss(ray, ray_cluster, ray_connections, lambda: made[0].workers, RUN_LIMIT_S)
    replaced = _before_second_iteration(runner.trainer, remove)
    try:
        parameters, env_steps = _trained(runner, replace)
    finally:
        restore_the_worker_node(ray_cluster, ray_connections)

    assert replaced and made[0].restarts.total == 1
    np.testing.assert_array_equal(parameters, fault_free[0])
    assert env_steps == fault_free[1]  # the lost worker's pair was played once, by its restarted instance


def test_es_without_room_to_restart_a_lost_worker_trains_on_with_the_other_and_warns(
    ray_cluster: Any,
    ray_connections: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The worker node dies after the first iteration; its worker's restart finds no free CPU."""
    runner, made = _on_ray(tmp_path / "ray", monkeypatch, "runner.restart_timeout_s=4")

    removed = _before_second_iteration(
        runner.trainer, lambda: remove_the_worker_node(ray, ray_cluster, made[0].workers)
    )
    try:
        parameters, env_steps = _trained(runner)
    finally:
        restore_the_worker_node(ray_cluster, ray_connections)
    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith(DEGRADED)]

    assert removed and made[0].restarts.total == 1 and runner.trainer.epochs_done == 3
    assert len(warnings) == 2  # one per iteration without the worker
    assert f"ES worker(s) {removed[0]} did not come back" in warnings[0] and "each needs 1 CPU" in warnings[0]
    reference = _in_process(tmp_path / "reference", monkeypatch, "test_ray_es_faults.InProcessWorkersLosingOne")
    reference.lost = removed[0]
    reference_parameters, reference_steps = _trained(reference)
    np.testing.assert_array_equal(parameters, reference_parameters)
    assert env_steps == reference_steps
