"""SACEvents: what SAC reports per gradient step, reduced to epoch means."""

from __future__ import annotations

import numpy as np
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_step_stats
from maze.train.event_log import UpdateTimingEvents, epoch_mean

__all__ = ["SACEvents"]


class SACEvents(UpdateTimingEvents):
    """Training statistics of :class:`~maze.train.trainers.sac.trainer.SAC` (an update is one iteration)."""

    @epoch_mean
    def policy_loss(self, value: float) -> None:
        """The policy loss ``E[alpha * log pi(a|s) - min Q(s, a)]``."""

    @epoch_mean
    def policy_entropy(self, value: float) -> None:
        """The mean entropy estimate of the policy (``-log pi`` of sampled actions; exact for discrete heads)."""

    @epoch_mean
    def policy_grad_norm(self, value: float) -> None:
        """The gradient norm of the policy parameters (before clipping)."""

    @epoch_mean
    def critic_value(self, value: float) -> None:
        """The mean Q value of the first Q network on the sampled transitions."""

    @epoch_mean
    def critic_value_loss(self, value: float) -> None:
        """The summed mean squared errors of both Q networks."""

    @epoch_mean
    def critic_grad_norm(self, value: float) -> None:
        """The gradient norm of the Q networks' parameters (before clipping)."""

    @epoch_mean
    def entropy_coef(self, value: float) -> None:
        """The entropy coefficient alpha."""

    @epoch_mean
    def entropy_coef_loss(self, value: float) -> None:
        """The loss of the entropy tuning (0 without tuning)."""

    @epoch_mean
    def buffer_size(self, value: float) -> None:
        """Transitions in the replay buffer."""

    @epoch_mean
    def policy_lag(self, value: float) -> None:
        """Policy broadcasts between the weights a collected rollout was acted with and the learner's (0 in-process)."""

    @define_epoch_stats(np.sum)
    @define_episode_stats(sum)
    @define_step_stats(sum)
    def actor_restarts(self, value: int) -> None:
        """Workers restarted after their process or node died (epoch total; their unfinished rollouts were discarded)."""
