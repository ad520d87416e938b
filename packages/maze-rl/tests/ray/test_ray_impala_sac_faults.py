"""IMPALA and SAC on the simulated cluster under node loss: restarts are counted, env steps neither lost nor doubled.

One actor per 1-CPU node: the worker node is removed after the first epoch, in the learner's
own call (so where it falls does not depend on the machine's speed). With a new node joining,
the learner waits until Ray has restarted the lost actor there, so the run cannot end before
the death is seen: the restart is counted once and every update took its rollouts, none lost,
none twice. With no room to restart it, IMPALA trains on with the other actor and warns every
epoch once the actor has been down ``runner.restart_timeout_s`` (the error when no actor is
left is tested without Ray, in maze-train). Every run is guarded by a thread: none may hang.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import ray
from maze.env.log_stats.log_stats_env import stats_value
from maze.train.trainers.impala.events import ImpalaEvents
from maze.train.trainers.sac.events import SACEvents
from ray_runs import (
    StatsRecorder,
    finished_within,
    once_in_the_learner,
    remove_the_worker_node,
    replaced_node_loss,
    restore_the_worker_node,
    set_up_job,
    wait_for_a_new_process,
)
from test_ray_impala import IMPALA_ON_RAY
from test_ray_sac import SAC_CARTPOLE_ON_RAY

RUN_LIMIT_S = 240
"""A run that takes longer hangs (a fault-free one takes seconds)."""

EPOCHS = 3

IMPALA_SHORT = (
    *IMPALA_ON_RAY,
    f"algorithm.n_epochs={EPOCHS}",
    "algorithm.epoch_length=10",
    "algorithm.rollout_evaluator=null",
)
"""Three epochs of ten updates of one rollout of 4 envs x 50 steps (2,000 env steps an epoch), no evaluation."""

SAC_SHORT = (*SAC_CARTPOLE_ON_RAY, f"algorithm.n_epochs={EPOCHS}", "algorithm.epoch_length=50")
"""100 random transitions, then three epochs of 50 iterations of one 1-step rollout of each of two workers."""

DEGRADED = "Warning: the learner trains on the rollouts of 1 of 2 actors"


def _awaiting_the_restart(remove: Callable[[], int], actors: Callable[[], Sequence[Any]]) -> Callable[[], int]:
    """``remove()``, then waits until Ray has restarted the lost actor (on the new node); returns its index."""

    def remove_and_wait() -> int:
        pids = [ray.get(actor.pid.remote()) for actor in actors()]
        lost = remove()
        wait_for_a_new_process(ray, actors()[lost], pids[lost], RUN_LIMIT_S)
        return lost

    return remove_and_wait


def _restarts(recorder: StatsRecorder, event: Any) -> list[int]:
    return [stats_value(table, event) for table in recorder.tables]


def _run_losing_the_worker_node(
    cluster: Any, connections: Any, runner: Any, owner: Any, method: str, actors: Callable[[], Sequence[Any]]
) -> tuple[list[int], StatsRecorder]:
    """Runs ``runner``; ``owner.<method>`` removes the worker node after the first epoch and waits for the restart.

    A new node joins from the test's thread; the worker node is restored afterwards. Returns the
    index of the lost actor (in a list, empty if the removal never happened) and the epochs' statistics.
    """
    remove, replace = replaced_node_loss(ray, cluster, connections, actors, RUN_LIMIT_S)
    trainer = runner.trainer
    lost = once_in_the_learner(owner, method, lambda: trainer.epochs_done == 1, _awaiting_the_restart(remove, actors))
    try:
        with StatsRecorder("train") as recorder:
            finished_within(RUN_LIMIT_S, runner.run, replace)
    finally:
        restore_the_worker_node(cluster, connections)
    return lost, recorder


def test_a_lost_and_replaced_node_restarts_one_impala_actor_and_no_rollout_is_lost_or_counted_twice(
    ray_cluster: Any, ray_connections: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = set_up_job("conf_train", IMPALA_SHORT, tmp_path / "run", monkeypatch)
    trainer, actors = runner.trainer, runner.trainer.actors
    lost, recorder = _run_losing_the_worker_node(
        ray_cluster, ray_connections, runner, actors, "collect_outputs", lambda: actors.actors
    )

    assert lost and trainer.epochs_done == EPOCHS
    assert trainer.env_steps == EPOCHS * 10 * 50 * 4  # one rollout of 4 envs x 50 steps per update
    restarts = _restarts(recorder, ImpalaEvents.actor_restarts)
    assert sum(restarts) == 1, f"actor restarts per epoch: {restarts}"


def test_a_lost_and_replaced_node_restarts_one_sac_worker_and_no_transition_is_lost_or_stored_twice(
    ray_cluster: Any, ray_connections: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = set_up_job("conf_train", SAC_SHORT, tmp_path / "run", monkeypatch)
    trainer, workers = runner.trainer, runner.trainer.workers
    lost, recorder = _run_losing_the_worker_node(
        ray_cluster, ray_connections, runner, workers, "collect_rollouts", lambda: workers.actors.actors
    )

    assert lost and trainer.epochs_done == EPOCHS
    assert workers.env_steps == 100 + EPOCHS * 50 * 2  # two 1-step rollouts per iteration
    assert workers.stored_transitions() == workers.env_steps
    restarts = _restarts(recorder, SACEvents.actor_restarts)
    assert sum(restarts) == 1, f"worker restarts per epoch: {restarts}"


def test_impala_without_room_to_restart_a_lost_actor_trains_on_with_the_other_and_warns(
    ray_cluster: Any,
    ray_connections: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The worker node dies after the first epoch; the restart of its actor finds no free CPU.

    The third epoch starts once the learner has seen the lost node and the actor has been down
    ``restart_timeout_s`` (``degraded_notice`` checks the nodes), so at least that epoch warns.
    """
    overrides = (*IMPALA_SHORT, "runner.restart_timeout_s=2")
    runner = set_up_job("conf_train", overrides, tmp_path / "run", monkeypatch)
    trainer, actors = runner.trainer, runner.trainer.actors

    def wait_until_overdue() -> None:
        deadline = time.monotonic() + RUN_LIMIT_S
        while not actors.degraded_notice() and time.monotonic() < deadline:
            time.sleep(0.1)

    removed = once_in_the_learner(
        actors,
        "collect_outputs",
        lambda: trainer.epochs_done == 1,
        lambda: remove_the_worker_node(ray, ray_cluster, actors.actors),
    )
    once_in_the_learner(actors, "collect_outputs", lambda: trainer.epochs_done == 2, wait_until_overdue)
    try:
        with StatsRecorder("train") as recorder:
            finished_within(RUN_LIMIT_S, runner.run)
    finally:
        restore_the_worker_node(ray_cluster, ray_connections)
    warnings = [line for line in capsys.readouterr().out.splitlines() if line.startswith(DEGRADED)]

    assert removed and trainer.epochs_done == EPOCHS
    assert trainer.env_steps == EPOCHS * 10 * 50 * 4  # the other actor delivered every update's rollout
    assert sum(_restarts(recorder, ImpalaEvents.actor_restarts)) == 1
    assert 1 <= len(warnings) <= 2  # the third epoch's, and the second's if it took longer than the timeout
    assert f"Actor(s) {removed[0]} did not come back within runner.restart_timeout_s=2 s" in warnings[-1]
    assert "each needs 1 CPU" in warnings[-1]
