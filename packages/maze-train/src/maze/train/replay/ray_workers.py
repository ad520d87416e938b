"""RayDistributedWorkersWithBuffer: Ray actors with their own policy copy feed the learner's replay buffer.

The workers of ``sac-ray`` (``algorithm=sac runner=ray``; extra ``maze-train[ray]``) are
IMPALA's Ray actors (:class:`~maze.train.distributed.ray_actors.RayDistributedActors`, without
behaviour log-probabilities) behind the seam of
:class:`~maze.train.replay.subproc_workers.SubprocDistributedWorkersWithBuffer`: each actor
builds its env and its policy from their configs on its own node, the learner puts every new
version of the weights into Ray's object store once, and an actor loads them before its next
rollout. Each actor has one rollout in flight, so at most ``num_actors`` finished rollouts wait
for the learner (:attr:`policy_lag`, the rollouts' age in broadcasts, measured 1.0 on Pendulum with one worker).

**Restarts.** A worker whose process or node died is restarted by Ray (``runner.max_restarts``
times each, counted in ``SACEvents.actor_restarts``); its unfinished rollout never reached the
buffer and is discarded, and the transition its previous rollout left open (structured envs)
is dropped, because the new instance's env starts a new episode: no transition is lost
silently, none is stored twice and none joins two episodes.
"""

from __future__ import annotations

from typing import Any, Callable

from maze.rollout.ray_cluster import RayCluster
from maze.train.distributed.actors import DistributedActors
from maze.train.distributed.ray_actors import RayDistributedActors
from maze.train.replay.subproc_workers import SubprocDistributedWorkersWithBuffer

__all__ = ["RayDistributedWorkersWithBuffer"]


class RayDistributedWorkersWithBuffer(SubprocDistributedWorkersWithBuffer):
    """One Ray actor per worker, each stepping one env with its own copy of the policy (see the module docs).

    The initial sampling policy acts in this process, as with worker processes.

    Args:
        *args: The arguments of :class:`SubprocDistributedWorkersWithBuffer` (env factory, policy,
            buffers, rollout steps, workers, seeds).
        cluster: Where and how to run on Ray (``runner.ray_address``, ``ray_init``, ``runtime_env``, ``max_restarts``).
        policy_factory: Builds a worker's policy from the run's model config (picklable).
        num_cpus_per_actor: CPUs Ray reserves for each worker.
        restart_timeout_s: After how long a lost worker is named in the epoch's warning, and
            how long the learner waits when every worker is lost (see
            :class:`~maze.train.distributed.ray_actors.RayDistributedActors`).
    """

    def __init__(
        self,
        *args: Any,
        cluster: RayCluster,
        policy_factory: Callable[[], Any],
        num_cpus_per_actor: float = 1,
        restart_timeout_s: float = 60,
    ) -> None:
        self._ray_options = {
            "cluster": cluster,
            "policy_factory": policy_factory,
            "num_cpus_per_actor": num_cpus_per_actor,
            "restart_timeout_s": restart_timeout_s,
        }
        super().__init__(*args)

    def _new_actors(
        self, *args: Any, queue_out_of_sync_factor: int, start_method: str, **kwargs: Any
    ) -> DistributedActors:
        """Ray actors (the queue factor and start method of worker processes do not apply)."""
        return RayDistributedActors(*args, **kwargs, **self._ray_options)
