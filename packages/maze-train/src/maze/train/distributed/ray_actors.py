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
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from typing import Any, Callable, Optional

import numpy as np
import torch
from maze.rollout.ray_cluster import ActorRestarts, RayCluster, actor_start_failure, new_incarnation
from maze.train.distributed.actors import ActorOutput, DistributedActors, act_once, actor_collector
from maze.train.distributed.subproc_actors import ActorFailedError

__all__ = ["ImpalaRayActor", "RayDistributedActors", "load_policy_weights", "policy_weights"]

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

    def rollout(self, weights: PolicyWeights, version: int) -> ActorOutput:
        """One rollout with the weights of ``version`` (loaded first unless the actor has them).

        Returns:
            The rollout, tagged with the id of this actor instance (restarts show as new ids).
        """
        if version != self.version:
            load_policy_weights(self.policy, weights)
            self.version = version
        output = act_once(self.collector, self.policy, version, self.actor, self.behaviour_log_probs)
        output.incarnation = self.incarnation
        return output

    def pid(self) -> int:
        """The process id of the actor (tests kill it)."""
        return os.getpid()


class RayDistributedActors(DistributedActors):
    """The actors of :class:`~maze.train.distributed.actors.DistributedActors` as Ray actors (see the module docs).

    Args:
        cluster: Where and how to run on Ray (``runner.ray_address``, ``ray_init``, ``runtime_env``, ``max_restarts``).
        policy_factory: Builds an actor's policy from the run's model config (picklable).
        num_cpus_per_actor: CPUs Ray reserves for each actor.
        **kwargs: The arguments of :class:`~maze.train.distributed.actors.DistributedActors`.
    """

    def __init__(
        self,
        *args: Any,
        cluster: RayCluster,
        policy_factory: Callable[[], Any],
        num_cpus_per_actor: float = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.cluster = cluster
        self.policy_factory = policy_factory
        self.num_cpus_per_actor = num_cpus_per_actor
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
        self._weights = None
        self._stack.close()

    def broadcast_updated_policy(self, policy: Any) -> None:
        """Puts the learner's weights into the object store once, as the next version."""
        self._weights = self._ray.put(policy_weights(policy))
        self.policy_version += 1

    def collect_outputs(self) -> list[ActorOutput]:
        """Waits for ``actors_batch_size`` rollouts; each actor that delivered is asked for its next one.

        Raises:
            ActorFailedError: An actor raised (with its traceback), or died more than ``max_restarts`` times.
        """
        exceptions = self._ray.exceptions
        outputs: list[ActorOutput] = []
        while len(outputs) < self.actors_batch_size:
            ready, _ = self._ray.wait(list(self._in_flight), num_returns=1)
            for request in ready:
                actor, generation = self._in_flight.pop(request)
                try:
                    output = self._ray.get(request)
                except exceptions.RayActorError as error:
                    if error.actor_init_failed:
                        raise ActorFailedError(actor_start_failure(f"Actor {actor}", error)) from None
                    self._restarts.failed(actor, generation, error)  # the rollout never reached the learner
                except exceptions.RayTaskError as error:
                    raise ActorFailedError(f"Actor {actor} failed; training stopped. {error}") from None
                else:
                    self._restarts.delivered(actor, output.incarnation)
                    outputs.append(output)
                self._request(actor)
        return outputs

    def queue_size(self) -> int:
        """Finished rollouts waiting for the learner."""
        ready, _ = self._ray.wait(list(self._in_flight), num_returns=len(self._in_flight), timeout=0)
        return len(ready)

    def take_restarts(self) -> int:
        """Actor restarts since the last call."""
        restarts = self._restarts.total - self._restarts_taken
        self._restarts_taken = self._restarts.total
        return restarts

    def _request(self, actor: int) -> None:
        request = self.actors[actor].rollout.remote(self._weights, self.policy_version)
        self._in_flight[request] = (actor, self._restarts.generation(actor))
