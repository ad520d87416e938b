"""ESRayRounds without Ray: lost workers are waited for up to the deadline, left out, resumed where they stood; none left stops.

A stand-in for the ``ray`` module plays the workers: each one runs (answers at once), has died
(its next call fails, later calls wait, as for an actor that Ray restarts), or starts (calls wait).
"""

from __future__ import annotations

import time
from typing import Any, Optional

import pytest
from maze.env.errors import EnvWorkerError
from maze.rollout.ray_cluster import ActorRestarts
from maze.train.distributed.es.ray_rounds import ESRayRounds

TIMEOUT_S = 0.05
"""``restart_timeout_s`` of the tests."""

CAPACITY = "each needs 1 CPU; the cluster has 0 of 1 CPUs free"


class WorkerDied(Exception):
    """A call failed because its worker died (Ray's ``RayActorError``)."""

    actor_init_failed = False


class WorkerRaised(Exception):
    """A worker raised (Ray's ``RayTaskError``)."""


class FakeCall:
    """A call of ``worker``: it fails (``died``) or answers ``(incarnation, (worker, position))`` once it runs."""

    def __init__(self, ray: FakeRay, worker: int, position: Optional[int], died: bool = False) -> None:
        self.ray, self.worker, self.position, self.died = ray, worker, position, died

    def ready(self) -> bool:
        return self.died or self.ray.states[self.worker] == "runs"


class FakeRay:
    """Just enough of ``ray`` for ESRayRounds; ``states[w]``: ``runs``, ``died`` or ``starts`` (see the module docs)."""

    class exceptions:  # noqa: N801  # the name of ray's module
        RayActorError = WorkerDied
        RayTaskError = WorkerRaised

    def __init__(self, *states: str) -> None:
        self.states = list(states)

    def call(self, worker: int, position: Optional[int] = None) -> FakeCall:
        if self.states[worker] == "died":
            self.states[worker] = "starts"  # Ray restarts it: the next calls wait
            return FakeCall(self, worker, position, died=True)
        return FakeCall(self, worker, position)

    def wait(self, calls: list, num_returns: int, timeout: Optional[float]) -> tuple[list, list]:
        ready = [call for call in calls if call.ready()]
        if not ready:
            assert timeout is not None, "the rounds would wait forever"
            time.sleep(timeout)
            ready = [call for call in calls if call.ready()]
        return ready[:num_returns], [call for call in calls if call not in ready[:num_returns]]

    def get(self, call: FakeCall) -> tuple[str, Any]:
        if call.died:
            raise WorkerDied()
        return f"instance of {call.worker}", None if call.position is None else (call.worker, call.position)


def _rounds(ray: FakeRay) -> ESRayRounds:
    restarts = ActorRestarts(3, EnvWorkerError, lambda worker: f"ES worker {worker}", "it resumes its stream")
    return ESRayRounds(ray, len(ray.states), restarts, TIMEOUT_S, lambda: CAPACITY)


def _play(rounds: ESRayRounds, ray: FakeRay) -> list:
    return rounds.play(ray.call, ray.call)


def test_a_worker_that_does_not_come_back_is_left_out_and_resumes_its_stream_where_it_stood() -> None:
    ray = FakeRay("runs", "runs")
    rounds = _rounds(ray)
    assert _play(rounds, ray) == [(0, 0), (1, 0)]

    ray.states[1] = "died"
    assert _play(rounds, ray) == [(0, 1)]  # waited TIMEOUT_S for worker 1, then went on without it
    assert rounds.out_workers() == [1] and rounds.restarts.total == 1
    notice = rounds.degraded_notice()
    assert notice.startswith("Warning: ES trains with 1 of 2 workers: ES worker(s) 1 did not come back")
    assert CAPACITY in notice
    assert _play(rounds, ray) == [(0, 2)]  # an out worker is not waited for

    ray.states[1] = "runs"  # Ray restarted it
    assert _play(rounds, ray) == [(0, 3), (1, 1)]  # its first pair reached a round: it plays its second
    assert rounds.out_workers() == [] and rounds.degraded_notice() == ""
    assert rounds.restarts.total == 1


def test_with_no_worker_left_the_rounds_stop_with_one_error_that_names_the_capacity() -> None:
    ray = FakeRay("runs", "runs")
    rounds = _rounds(ray)
    _play(rounds, ray)
    ray.states[:] = ["died", "died"]

    with pytest.raises(EnvWorkerError) as raised:
        _play(rounds, ray)

    assert str(raised.value).startswith(
        f"no ES worker is running: ES workers 0, 1 did not run again within runner.restart_timeout_s={TIMEOUT_S:g} s "
        f"({CAPACITY}); the run stopped. Add nodes or CPUs to the cluster"
    )


def test_workers_still_starting_are_awaited_with_a_notice_until_the_first_one_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ray = FakeRay("starts", "starts")
    rounds = _rounds(ray)
    notice = f"No ES worker runs yet ({CAPACITY})"
    printed: list[str] = []
    wait = ray.wait

    def wait_and_start_worker_0_after_3_notices(*arguments: Any, **keywords: Any) -> tuple[list, list]:
        printed.append(capsys.readouterr().out)
        if "".join(printed).count(notice) == 3:
            ray.states[0] = "runs"
        return wait(*arguments, **keywords)

    ray.wait = wait_and_start_worker_0_after_3_notices  # type: ignore[method-assign]
    assert _play(rounds, ray) == [(0, 0)]  # worker 1, still starting TIMEOUT_S after worker 0 ran, is left out

    assert "".join([*printed, capsys.readouterr().out]).count(notice) == 3
    assert rounds.out_workers() == [1] and rounds.restarts.total == 0
