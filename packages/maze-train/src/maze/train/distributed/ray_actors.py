"""RayDistributedActors: IMPALA's actors as Ray actors, on this machine or a cluster (extra ``maze-train[ray]``).

Every actor builds its envs and its own copy of the policy from their configs (an env
factory and a policy factory, sent once when the actor starts), so nothing live is pickled
per rollout. The learner puts each new version of the weights into Ray's object store once
(:meth:`RayDistributedActors.broadcast_updated_policy`); a rollout request carries the
reference and the version, and an actor whose weights are older loads them before it acts,
so every rollout is produced by exactly one version and tagged with it.

Each actor has at most one rollout request in flight: a finished rollout waits in the object
store until the learner takes it and only then is the actor asked for the next one, so at
most ``num_actors`` rollouts wait for the learner (back-pressure bounds the queue and the
policy lag). Fault tolerance: an actor whose process or node died is restarted by Ray (up to
``runner.max_restarts`` times per actor); its unfinished rollout is discarded (it never
reached the learner, so nothing is counted twice) and it is asked again. Restarts are counted
(:meth:`take_restarts`, ``ImpalaEvents.actor_restarts`` in the statistics); one death more
stops training with one :class:`~maze.train.distributed.subproc_actors.ActorFailedError`, as
does an exception of the env or policy (with the actor's traceback).

An actor is *down* from a call that failed because it died, or from the moment the learner
finds the node of its last rollout dead (checked every ``NODE_CHECK_S`` while the learner
waits or takes rollouts, and at every :meth:`~RayDistributedActors.degraded_notice`: a request
sent to an actor that Ray restarts waits for it instead of failing), until it delivers again.
The learner does not wait for down actors while others deliver (learning is asynchronous); one
down longer than ``runner.restart_timeout_s`` (e.g. its node was lost and the cluster has no
room for it) is named by :meth:`~RayDistributedActors.degraded_notice`, which the trainer logs
every epoch until the actor is back. When every actor has been down that long, the run stops
with one :class:`~maze.train.distributed.subproc_actors.ActorFailedError` naming the CPUs an
actor needs and the cluster has free.
"""

from __future__ import annotations

import os
import time
from contextlib import ExitStack
from typing import Any, Callable, Optional

import numpy as np
import torch
from maze.rollout.ray_cluster import (
    ActorRestarts,
    RayCluster,
    actor_start_failure,
    alive_nodes,
    cpu_capacity,
    new_incarnation,
    node_id,
)
from maze.train.distributed.actors import ActorOutput, DistributedActors, act_once, actor_collector
from maze.train.distributed.subproc_actors import ActorFailedError

__all__ = ["NODE_CHECK_S", "ImpalaRayActor", "RayDistributedActors", "load_policy_weights", "policy_weights"]

NODE_CHECK_S = 1.0
"""Seconds between two checks of the learner whether the nodes of its actors are alive (see the module docs)."""

PolicyWeights = dict[str, dict[str, np.ndarray]]
"""Network key -> parameter or buffer name -> array: the weights as they travel through the object store."""


def policy_weights(policy: Any) -> PolicyWeights:
    """The state of every network of a TorchPolicy as CPU arrays (what the object store holds)."""
    return {
        key: {name: tensor.detach().cpu().numpy() for name, tensor in network.state_dict().items()}
        for key, network in policy.named_networks().items()
    }


def load_policy_weights(policy: Any, weights: PolicyWeights) -> None:
    """Copies ``weights`` into the live parameters and buffers of ``policy`` (on the CPU)."""
    for key, network in policy.named_networks().items():
        for name, tensor in network.state_dict(keep_vars=True).items():
            tensor.detach().numpy()[...] = weights[key][name]  # the object store's arrays are read-only: copy


class ImpalaRayActor:
    """One IMPALA actor inside a Ray actor process: its envs, its policy copy, one rollout per call.

    Args:
        actor: Index of the actor (tagged onto its outputs).
        env_factory: Builds one env.
        policy_factory: Builds the actor's TorchPolicy (on the CPU).
        n_rollout_steps: ``T``, env steps per rollout.
        seeds: The seeds of the actor's envs.
        behaviour_log_probs: Compute the behaviour log-probabilities of each rollout.
    """

    def __init__(
        self,
        actor: int,
        env_factory: Callable[[], Any],
        policy_factory: Callable[[], Any],
        n_rollout_steps: int,
        seeds: list[Optional[int]],
        behaviour_log_probs: bool,
    ) -> None:
        torch.set_num_threads(1)
        self.actor = actor
        self.policy = policy_factory()
        self.collector = actor_collector(env_factory, n_rollout_steps, seeds)
        self.behaviour_log_probs = behaviour_log_probs
        self.version = -1
        self.incarnation = new_incarnation()
        self.node_id = node_id()

    def rollout(self, weights: PolicyWeights, version: int) -> ActorOutput:
        """One rollout with the weights of ``version`` (loaded first unless the actor has them).

        Returns:
            The rollout, tagged with the id of this actor instance (restarts show as new ids) and of its node.
        """
        if version != self.version:
            load_policy_weights(self.policy, weights)
            self.version = version
        output = act_once(self.collector, self.policy, version, self.actor, self.behaviour_log_probs)
        output.incarnation = self.incarnation
        output.node = self.node_id
        return output

    def pid(self) -> int:
        """The process id of the actor (tests kill it)."""
        return os.getpid()

    def node(self) -> str:
        """The id of the actor's node (tests remove it)."""
        return self.node_id


class RayDistributedActors(DistributedActors):
    """The actors of :class:`~maze.train.distributed.actors.DistributedActors` as Ray actors (see the module docs).

    Args:
        cluster: Where and how to run on Ray (``runner.ray_address``, ``ray_init``, ``runtime_env``, ``max_restarts``).
        policy_factory: Builds an actor's policy from the run's model config (picklable).
        num_cpus_per_actor: CPUs Ray reserves for each actor.
        restart_timeout_s: After how long down, an actor is named in :meth:`degraded_notice`;
            when every actor is down this long, the run stops (``runner.restart_timeout_s``).
        **kwargs: The arguments of :class:`~maze.train.distributed.actors.DistributedActors`.
    """

    def __init__(
        self,
        *args: Any,
        cluster: RayCluster,
        policy_factory: Callable[[], Any],
        num_cpus_per_actor: float = 1,
        restart_timeout_s: float = 60,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.cluster = cluster
        self.policy_factory = policy_factory
        self.num_cpus_per_actor = num_cpus_per_actor
        self.restart_timeout_s = restart_timeout_s
        self.cluster.require_ray()
        self.actors: list[Any] = []
        """The Ray actor handles (while started)."""
        self._stack = ExitStack()
        self._in_flight: dict[Any, tuple[int, int]] = {}  # rollout request -> (actor, its restart generation)
        self._restarts = ActorRestarts(
            cluster.max_restarts,
            ActorFailedError,
            lambda actor: f"Actor {actor}",
            "its unfinished rollout is discarded",
        )
        self._restarts_taken = 0
        self._down_since: dict[int, float] = {}  # actor -> since when it is down (see the module docs)
        self._nodes: dict[int, str] = {}  # actor -> the node of its last rollout
        self._next_node_check = 0.0
        self._weights: Any = None

    def start(self) -> None:
        """Connects to Ray, puts the weights (version 0) into the object store and starts the actors."""
        self._ray = self._stack.enter_context(self.cluster.connected())
        self._weights = self._ray.put(policy_weights(self.policy))
        actor_class = self._ray.remote(ImpalaRayActor).options(
            **self.cluster.actor_options(num_cpus=self.num_cpus_per_actor)
        )
        self.actors = [
            actor_class.remote(
                actor,
                self.env_factory,
                self.policy_factory,
                self.n_rollout_steps,
                self.actor_seeds(actor),
                self.behaviour_log_probs,
            )
            for actor in range(self.num_actors)
        ]
        for actor in range(self.num_actors):
            self._request(actor)

    def stop(self) -> None:
        """Ends the actors and disconnects (a Ray started for the run stops); safe to call more than once."""
        for actor in self.actors:
            self._ray.kill(actor, no_restart=True)
        self.actors = []
        self._in_flight = {}
        self._down_since = {}
        self._nodes = {}
        self._weights = None
        self._stack.close()

    def broadcast_updated_policy(self, policy: Any) -> None:
        """Puts the learner's weights into the object store once, as the next version."""
        self._weights = self._ray.put(policy_weights(policy))
        self.policy_version += 1

    def collect_outputs(self) -> list[ActorOutput]:
        """Waits for ``actors_batch_size`` rollouts; each actor that delivered is asked for its next one.

        Raises:
            ActorFailedError: An actor raised (with its traceback), died more than ``max_restarts``
                times, or every actor has been down longer than ``restart_timeout_s``.
        """
        exceptions = self._ray.exceptions
        outputs: list[ActorOutput] = []
        while len(outputs) < self.actors_batch_size:
            self._check_nodes(every=NODE_CHECK_S)
            if len(self._overdue()) == self.num_actors:
                raise ActorFailedError(self._nobody_left())
            ready, _ = self._ray.wait(list(self._in_flight), num_returns=1, timeout=self._patience())
            for request in ready:
                actor, generation = self._in_flight.pop(request)
                try:
                    output = self._ray.get(request)
                except exceptions.RayActorError as error:
                    if error.actor_init_failed:
                        raise ActorFailedError(actor_start_failure(f"Actor {actor}", error)) from None
                    self._restarts.failed(actor, generation, error)  # the rollout never reached the learner
                    self._down_since.setdefault(actor, time.monotonic())
                except exceptions.ObjectLostError:
                    pass  # a finished rollout lost with its node: the node check or the next instance counts the death
                except exceptions.RayTaskError as error:
                    raise ActorFailedError(f"Actor {actor} failed; training stopped. {error}") from None
                else:
                    self._restarts.delivered(actor, output.incarnation, generation)
                    if not self._restarts.restarting(actor):  # else finished before the death that was seen
                        self._down_since.pop(actor, None)
                        self._nodes[actor] = output.node
                    outputs.append(output)
                self._request(actor)
        return outputs

    def degraded_notice(self) -> str:
        """The warning while actors are down longer than ``restart_timeout_s`` (empty while none is).

        Checks the nodes of the actors first (see the module docs).
        """
        self._check_nodes(every=0)
        overdue = self._overdue()
        if not overdue:
            return ""
        return (
            f"Warning: the learner trains on the rollouts of {self.num_actors - len(overdue)} of {self.num_actors} "
            f"actors: Actor(s) {', '.join(map(str, overdue))} did not come back within "
            f"runner.restart_timeout_s={self.restart_timeout_s:g} s ({self._capacity()}); each rejoins when Ray has "
            "restarted it"
        )

    def queue_size(self) -> int:
        """Finished rollouts waiting for the learner."""
        ready, _ = self._ray.wait(list(self._in_flight), num_returns=len(self._in_flight), timeout=0)
        return len(ready)

    def take_restarts(self) -> int:
        """Actor restarts since the last call."""
        restarts = self._restarts.total - self._restarts_taken
        self._restarts_taken = self._restarts.total
        return restarts

    def _overdue(self) -> list[int]:
        """The actors down longer than ``restart_timeout_s``."""
        now = time.monotonic()
        return sorted(actor for actor, since in self._down_since.items() if now - since >= self.restart_timeout_s)

    def _check_nodes(self, every: float) -> None:
        """Notes as down (and counts the death of) each actor whose last rollout's node is dead; at most ``every`` s."""
        now = time.monotonic()
        if now < self._next_node_check:
            return
        self._next_node_check = now + every
        alive = alive_nodes(self._ray)
        for actor, node in self._nodes.items():
            if actor not in self._down_since and node not in alive:
                self._restarts.node_lost(actor)
                self._down_since[actor] = now

    def _patience(self) -> float:
        """Seconds the learner waits for a rollout before it checks the nodes, or until every actor is overdue."""
        if len(self._down_since) < self.num_actors:
            return NODE_CHECK_S
        overdue_at = max(self._down_since.values()) + self.restart_timeout_s
        return max(0.0, min(NODE_CHECK_S, overdue_at - time.monotonic()))

    def _capacity(self) -> str:
        return cpu_capacity(self._ray, self.num_cpus_per_actor)

    def _nobody_left(self) -> str:
        return (
            f"no actor is running: Actors {', '.join(map(str, self._overdue()))} did not run again within "
            f"runner.restart_timeout_s={self.restart_timeout_s:g} s ({self._capacity()}); the run stopped. Add nodes "
            "or CPUs to the cluster, lower runner.num_cpus_per_actor, or raise runner.restart_timeout_s if the nodes "
            "take longer to start an actor"
        )

    def _request(self, actor: int) -> None:
        request = self.actors[actor].rollout.remote(self._weights, self.policy_version)
        self._in_flight[request] = (actor, self._restarts.generation(actor))
