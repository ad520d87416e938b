"""RayDistributedActors without Ray: a lost node's actor is found by the node check, left out, and none left stops.

A stand-in for the ``ray`` module plays the actors: each one runs on its own node (its rollout
requests answer at once) until its node is lost (its requests wait, as for an actor that Ray
cannot restart for lack of room).
"""

from __future__ import annotations

import sys
import time
from types import SimpleNamespace
from typing import Any, Optional

import pytest
from maze.rollout.ray_cluster import RayCluster
from maze.train.distributed import ray_actors
from maze.train.distributed.ray_actors import RayDistributedActors
from maze.train.distributed.subproc_actors import ActorFailedError

TIMEOUT_S = 0.05
"""``restart_timeout_s`` of the tests."""

CAPACITY = "each needs 1 CPU; the cluster has 0 of 1 CPUs free"


class FakeRequest:
    """A rollout request of ``actor``: it answers once, while the actor's node is alive."""

    def __init__(self, ray: FakeRay, actor: int) -> None:
        self.ray, self.actor = ray, actor

    def ready(self) -> bool:
        return self.ray.node(self.actor) in self.ray.alive


class FakeActor:
    """The handle of actor ``index``: ``rollout.remote(...)`` sends a request."""

    def __init__(self, ray: FakeRay, index: int) -> None:
        self.rollout = SimpleNamespace(remote=lambda *_: FakeRequest(ray, index))


class FakeRay:
    """Just enough of ``ray`` for RayDistributedActors; ``alive``: the nodes that run (actor ``i`` on ``node-i``)."""

    class exceptions:  # noqa: N801  # the names of ray's module
        RayActorError = type("RayActorError", (Exception,), {"actor_init_failed": False})
        RayTaskError = type("RayTaskError", (Exception,), {})
        ObjectLostError = type("ObjectLostError", (Exception,), {})

    def __init__(self, n_actors: int) -> None:
        self.alive = {self.node(actor) for actor in range(n_actors)}

    @staticmethod
    def node(actor: int) -> str:
        return f"node-{actor}"

    def is_initialized(self) -> bool:
        return True

    def put(self, value: Any) -> Any:
        return value

    def remote(self, _: type) -> Any:
        created: list[FakeActor] = []

        def create(*_: Any) -> FakeActor:
            created.append(FakeActor(self, len(created)))
            return created[-1]

        return SimpleNamespace(options=lambda **_: SimpleNamespace(remote=create))

    def wait(self, requests: list, num_returns: int, timeout: Optional[float]) -> tuple[list, list]:
        ready = [request for request in requests if request.ready()]
        if not ready:
            assert timeout is not None, "the learner would wait forever"
            time.sleep(timeout)
        return ready[:num_returns], []

    def get(self, request: FakeRequest) -> Any:
        return SimpleNamespace(incarnation=f"instance of {request.actor}", node=self.node(request.actor))

    def nodes(self) -> list[dict[str, Any]]:
        return [{"NodeID": self.node(actor), "Alive": self.node(actor) in self.alive} for actor in range(2)]

    def kill(self, *_: Any, **__: Any) -> None:
        pass

    def available_resources(self) -> dict[str, float]:
        return {"CPU": 0.0}

    def cluster_resources(self) -> dict[str, float]:
        return {"CPU": 1.0}


@pytest.fixture
def ray(monkeypatch: pytest.MonkeyPatch) -> FakeRay:
    fake = FakeRay(2)
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setattr(ray_actors, "NODE_CHECK_S", 0.0)  # the learner checks the nodes before every wait
    return fake


def _started(ray: FakeRay) -> RayDistributedActors:
    policy = SimpleNamespace(named_networks=dict)
    actors = RayDistributedActors(
        None, policy, 50, 2, 1, cluster=RayCluster(), policy_factory=None, restart_timeout_s=TIMEOUT_S
    )
    actors.start()
    return actors


def _delivering(actors: RayDistributedActors, updates: int) -> set[int]:
    return {output.node for _ in range(updates) for output in actors.collect_outputs()}


def test_the_actor_of_a_lost_node_is_counted_once_and_named_once_it_is_down_longer_than_the_timeout(
    ray: FakeRay,
) -> None:
    actors = _started(ray)
    assert _delivering(actors, 4) == {"node-0", "node-1"}
    ray.alive.discard("node-1")  # its request waits: Ray cannot restart it

    assert _delivering(actors, 4) == {"node-0"}  # the learner goes on with actor 0
    assert actors.take_restarts() == 1
    time.sleep(TIMEOUT_S)
    notice = actors.degraded_notice()

    assert notice.startswith(
        "Warning: the learner trains on the rollouts of 1 of 2 actors: Actor(s) 1 did not come back within "
        f"runner.restart_timeout_s={TIMEOUT_S:g} s ({CAPACITY})"
    )
    ray.alive.add("node-1")  # Ray restarted it
    assert _delivering(actors, 4) == {"node-0", "node-1"}
    assert actors.degraded_notice() == "" and actors.take_restarts() == 0


def test_with_every_actor_down_longer_than_the_timeout_the_learner_stops_with_one_error_that_names_the_capacity(
    ray: FakeRay,
) -> None:
    actors = _started(ray)
    _delivering(actors, 4)
    ray.alive.clear()

    with pytest.raises(ActorFailedError) as raised:
        actors.collect_outputs()

    assert str(raised.value).startswith(
        f"no actor is running: Actors 0, 1 did not run again within runner.restart_timeout_s={TIMEOUT_S:g} s "
        f"({CAPACITY}); the run stopped. Add nodes or CPUs to the cluster"
    )
    assert actors.take_restarts() == 2
