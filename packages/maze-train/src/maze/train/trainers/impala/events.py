"""ImpalaEvents: learner and actor timings, queue size, policy lag and V-trace statistics (epoch means)."""

from __future__ import annotations

import numpy as np
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_step_stats
from maze.train.core.actor_critic.events import ActorCriticEvents
from maze.train.event_log import epoch_mean

__all__ = ["ImpalaEvents"]


class ImpalaEvents(ActorCriticEvents):
    """The actor-critic statistics (losses, entropies, gradient norms, ...) plus IMPALA's own."""

    @epoch_mean
    def time_wait_for_data(self, value: float) -> None:
        """Seconds the learner waited for a batch of actor outputs."""

    @epoch_mean
    def learner_wait_share(self, value: float) -> None:
        """The share of an update's wall time the learner spent waiting for actor outputs."""

    @epoch_mean
    def time_actor_rollout(self, value: float) -> None:
        """Seconds an actor took for one rollout (in the actor)."""

    @epoch_mean
    def queue_size(self, value: float) -> None:
        """Actor outputs waiting in the queue after the learner took its batch."""

    @define_epoch_stats(np.sum)
    @define_episode_stats(sum)
    @define_step_stats(sum)
    def actor_restarts(self, value: int) -> None:
        """Actors restarted after their process or node died (epoch total; their unfinished rollouts were discarded)."""

    @epoch_mean
    def policy_lag(self, value: float) -> None:
        """Learner updates between the policy version an output was produced with and the learner's."""

    @epoch_mean
    def vtrace_rho_mean(self, value: float) -> None:
        """The mean importance weight ``pi / mu`` of a batch (1: on-policy)."""

    @epoch_mean
    def vtrace_clipped_share(self, value: float) -> None:
        """The share of importance weights above ``vtrace_clip_rho_threshold`` (clipped)."""
