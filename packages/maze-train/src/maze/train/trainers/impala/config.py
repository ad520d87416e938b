"""The keys of ``algorithm/impala.yaml``."""

from __future__ import annotations

from dataclasses import dataclass

from maze.train.core.actor_critic.config import ActorCriticAlgorithmConfig
from maze.train.core.config import bounded

__all__ = ["ImpalaAlgorithmConfig"]


@dataclass
class ImpalaAlgorithmConfig(ActorCriticAlgorithmConfig):
    """The keys of ``algorithm/impala.yaml`` (the shared ones: see :class:`ActorCriticAlgorithmConfig`).

    ``n_rollout_steps`` is the length of one actor's rollout; a learner batch joins
    ``actors_batch_size`` of them. ``gae_lambda`` is V-trace's trace-cutting ``lambda``
    (1.0 as in the paper).

    Attributes:
        queue_out_of_sync_factor: The actors' output queue holds this many learner batches
            (``queue_out_of_sync_factor * actors_batch_size`` rollouts); it bounds the policy lag.
        actors_batch_size: Actor rollouts per learner update.
        num_actors: Actors rolling out in parallel (worker processes with ``runner=local``).
        vtrace_clip_rho_threshold: ``rho_bar``: importance weights of the value targets are clipped here.
        vtrace_clip_pg_rho_threshold: ``rho_bar_pg``: importance weights of the policy gradient are clipped here.
    """

    epoch_length: int = bounded(25, ge=1)
    n_rollout_steps: int = bounded(100, ge=1)
    lr: float = bounded(0.0005, ge=0)
    optimizer: str = "adam"
    entropy_coef: float = bounded(0.01, ge=0)
    queue_out_of_sync_factor: int = bounded(1, ge=1)
    actors_batch_size: int = bounded(8, ge=1)
    num_actors: int = bounded(8, ge=1)
    vtrace_clip_rho_threshold: float = bounded(1.0, gt=0)
    vtrace_clip_pg_rho_threshold: float = bounded(1.0, gt=0)
