"""ActorCriticEvents: what A2C and PPO report per update, reduced to epoch means."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from maze.env.log_stats.event_decorators import (
    define_episode_stats,
    define_epoch_stats,
    define_stats_grouping,
    define_step_stats,
)
from maze.train.event_log import TrainerEventLog

__all__ = ["ActorCriticEvents", "TrainerEventLog", "epoch_mean"]  # TrainerEventLog lives in trainers.common.events

EventMethod = TypeVar("EventMethod", bound=Callable[..., Any])


def _mean_of_all(values: list) -> float:
    """The mean of all values of all updates (updates may record different numbers of values)."""
    return float(np.mean(np.concatenate([np.ravel(value) for value in values])))


def epoch_mean(method: EventMethod) -> EventMethod:
    """Raw values per update, averaged over the epoch."""
    method = define_step_stats(None)(method)
    method = define_episode_stats(_mean_of_all)(method)
    return define_epoch_stats(np.mean)(method)


def _epoch_mean_per_substep(method: EventMethod) -> EventMethod:
    """Like :func:`epoch_mean`, one statistic per sub-step slot."""
    return define_stats_grouping("substep")(epoch_mean(method))


class ActorCriticEvents:
    """Training statistics of the actor-critic trainers (A2C, PPO); ``substep`` is the slot index."""

    @epoch_mean
    def time_epoch(self, value: float) -> None:
        """Seconds the epoch took (rollouts, updates and evaluation)."""

    @epoch_mean
    def time_rollout(self, value: float) -> None:
        """Seconds one rollout took."""

    @epoch_mean
    def time_update(self, value: float) -> None:
        """Seconds one update (advantages and optimization) took."""

    @epoch_mean
    def learning_rate(self, value: float) -> None:
        """The optimizer's learning rate."""

    @_epoch_mean_per_substep
    def policy_loss(self, substep: int, value: float) -> None:
        """The policy loss of a slot."""

    @_epoch_mean_per_substep
    def policy_entropy(self, substep: int, value: float) -> None:
        """The mean entropy of a slot's action distribution."""

    @epoch_mean
    def policy_grad_norm(self, value: float) -> None:
        """The gradient norm of the policy parameters."""

    @_epoch_mean_per_substep
    def critic_value(self, substep: int, value: float) -> None:
        """The mean predicted value of a slot."""

    @_epoch_mean_per_substep
    def critic_value_loss(self, substep: int, value: float) -> None:
        """The value loss of a slot."""

    @epoch_mean
    def critic_grad_norm(self, value: float) -> None:
        """The gradient norm of the critic parameters."""
