"""ESRayRounds: rounds of one ES pair per running Ray worker; a lost worker is waited for up to a deadline, then left out.

The driver keeps every worker's stream position (how many of its pairs reached a round) and
sends it with each request, so a restarted worker, a new process, plays the very pair the lost
one would have played: a worker killed and restarted changes nothing in training.

A worker is *down* from a call that failed because it died until it delivers again, and so is
a worker still starting once the first worker of the run delivered (before that, while the
cluster starts the workers, e.g. installs their runtime environment, a notice every
``restart_timeout_s`` says that none runs yet and what a worker needs). A round waits for a
down worker until it has been down ``restart_timeout_s``; then the worker is left *out*: the
round finishes with the others (its results depend only on which workers delivered), and every
later round checks, without waiting, whether the worker came back (Ray restarts it as soon as
the cluster has room). When no worker is left, the run stops with one
:class:`~maze.env.errors.EnvWorkerError` that names what a worker needs and what the cluster
has free.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Optional

from maze.env.errors import EnvWorkerError
from maze.rollout.ray_cluster import ActorRestarts, actor_start_failure
from maze.train.distributed.es.rollouts import ESRolloutResult

logger = logging.getLogger(__name__)

__all__ = ["ESRayRounds"]

Call = Any
"""The ObjectRef of a worker's reply: ``(incarnation, ESRolloutResult)``, or ``(incarnation, None)`` for a probe."""


class ESRayRounds:
    """Plays rounds on the workers that run and keeps their stream positions (see the module docs).

    Args:
        ray: The connected ``ray`` module.
        n_workers: The workers.
        restarts: Counts the workers' deaths (and stops the run after too many).
        restart_timeout_s: How long a round waits for a worker that is down (see the module docs).
        capacity: What a worker needs and what the cluster has free, for messages.
    """

    def __init__(
        self,
        ray: Any,
        n_workers: int,
        restarts: ActorRestarts,
        restart_timeout_s: float,
        capacity: Callable[[], str],
    ) -> None:
        self.ray = ray
        self.restarts = restarts
        self.restart_timeout_s = restart_timeout_s
        self.capacity = capacity
        self.positions = [0] * n_workers
        """The stream position of each worker: the number of its pairs that reached a round."""
        self.down_since: dict[int, float] = {}
        """Since when each down worker is down (see the module docs)."""
        self._starting = set(range(n_workers))  # the workers that never delivered
        self._next_notice = time.monotonic() + restart_timeout_s  # of the wait for the first worker
        self.out: dict[Call, tuple[int, int]] = {}
        """The outstanding call of each worker left out -> (the worker, its restart generation)."""

    def play(self, request: Callable[[int, int], Call], probe: Callable[[int], Call]) -> list[ESRolloutResult]:
        """One pair of every worker that is not out, in worker order.

        Args:
            request: Sends worker ``w`` the request of the pair at stream position ``p`` (``request(w, p)``).
            probe: Sends worker ``w`` a call that answers as soon as the worker runs.

        Raises:
            EnvWorkerError: A worker raised or could not be built, one died more often than
                ``runner.max_restarts``, or no worker is left.
        """
        self._check_out(probe)
        calls = {request(w, self.positions[w]): (w, self.restarts.generation(w)) for w in self._running()}
        results: dict[int, ESRolloutResult] = {}
        while calls:
            ready, _ = self.ray.wait(list(calls), num_returns=1, timeout=self._patience(calls))
            if not ready:
                self._leave_out_overdue(calls)
                self._notice_none_started()
                continue
            worker, generation = calls.pop(ready[0])
            delivered, result = self._reply(ready[0], worker, generation)
            if delivered:
                results[worker] = result
                self.positions[worker] += 1
            elif self._overdue(worker):
                self.out[probe(worker)] = (worker, self.restarts.generation(worker))
            else:
                calls[request(worker, self.positions[worker])] = (worker, self.restarts.generation(worker))
        if not results:
            raise EnvWorkerError(self._nobody_left())
        return [results[worker] for worker in sorted(results)]

    def out_workers(self) -> list[int]:
        """The workers left out (waiting for their restart longer than ``restart_timeout_s``)."""
        return sorted(worker for worker, _ in self.out.values())

    def _running(self) -> list[int]:
        left_out = set(self.out_workers())
        return [worker for worker in range(len(self.positions)) if worker not in left_out]

    def _check_out(self, probe: Callable[[int], Call]) -> None:
        """Takes back the out workers whose call answered; probes again those whose call failed."""
        if not self.out:
            return
        ready, _ = self.ray.wait(list(self.out), num_returns=len(self.out), timeout=0)
        for call in ready:
            worker, generation = self.out.pop(call)
            delivered, _ = self._reply(call, worker, generation)  # a pair of an earlier round is not used
            if not delivered:
                self.out[probe(worker)] = (worker, self.restarts.generation(worker))

    def _reply(self, call: Call, worker: int, generation: int) -> tuple[bool, Optional[ESRolloutResult]]:
        """Whether the worker delivered, and its result; a call failed by the worker's death notes it down."""
        exceptions = self.ray.exceptions
        try:
            incarnation, result = self.ray.get(call)
        except exceptions.RayActorError as error:
            if error.actor_init_failed:
                raise EnvWorkerError(actor_start_failure(f"ES worker {worker}", error)) from None
            self.restarts.failed(worker, generation, error)
            self.down_since.setdefault(worker, time.monotonic())
            return False, None
        except exceptions.RayTaskError as error:
            raise EnvWorkerError(f"ES worker {worker} failed; training stopped. {error}") from None
        self.restarts.delivered(worker, incarnation)
        self.down_since.pop(worker, None)
        if self._none_started():  # the first reply: the cluster can start workers, the others' clocks run
            now = time.monotonic()
            self.down_since.update({other: self.down_since.get(other, now) for other in self._starting - {worker}})
        self._starting.discard(worker)
        return True, result

    def _overdue(self, worker: int) -> bool:
        since = self.down_since.get(worker)
        return since is not None and time.monotonic() - since >= self.restart_timeout_s

    def _none_started(self) -> bool:
        return len(self._starting) == len(self.positions)

    def _patience(self, calls: dict[Call, tuple[int, int]]) -> Optional[float]:
        """Seconds until a down worker of ``calls`` is overdue or the next notice is due (None: wait for all)."""
        deadlines = [self.down_since[w] + self.restart_timeout_s for w, _ in calls.values() if w in self.down_since]
        if self._none_started():
            deadlines.append(self._next_notice)
        return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None

    def _notice_none_started(self) -> None:
        """Says every ``restart_timeout_s`` that no worker runs yet while the first is awaited."""
        if self._none_started() and time.monotonic() >= self._next_notice:
            self._next_notice += self.restart_timeout_s
            logger.info(
                f"No ES worker runs yet ({self.capacity()}); waiting while Ray starts them (it places a worker when "
                "the cluster has room, after installing its runtime_env)"
            )

    def _leave_out_overdue(self, calls: dict[Call, tuple[int, int]]) -> None:
        """Moves the calls of overdue workers out of the round (each stays the worker's outstanding call)."""
        for call, (worker, generation) in list(calls.items()):
            if self._overdue(worker):
                del calls[call]
                self.out[call] = (worker, generation)

    def _nobody_left(self) -> str:
        return (
            f"no ES worker is running: ES workers {', '.join(map(str, self.out_workers()))} did not run again within "
            f"runner.restart_timeout_s={self.restart_timeout_s:g} s ({self.capacity()}); the run stopped. Add nodes "
            "or CPUs to the cluster, lower runner.num_cpus_per_actor, or raise runner.restart_timeout_s if the nodes "
            "take longer to start a worker"
        )

    def degraded_notice(self) -> str:
        """The warning of a round without the out workers (empty while all run)."""
        out = self.out_workers()
        if not out:
            return ""
        return (
            f"Warning: ES trains with {len(self.positions) - len(out)} of {len(self.positions)} workers: ES worker(s) "
            f"{', '.join(map(str, out))} did not come back within "
            f"runner.restart_timeout_s={self.restart_timeout_s:g} s ({self.capacity()}); each rejoins when Ray has "
            "restarted it"
        )
