"""ActorCriticEvents: what A2C and PPO report per update, reduced to epoch means."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from maze.env.log_stats.event_decorators import define_stats_grouping
from maze.train.event_log import UpdateTimingEvents, epoch_mean

__all__ = ["ActorCriticEvents"]

EventMethod = TypeVar("EventMethod", bound=Callable[..., Any])


def _epoch_mean_per_substep(method: EventMethod) -> EventMethod:
    """Like :func:`epoch_mean`, one statistic per sub-step slot."""
    return define_stats_grouping("substep")(epoch_mean(method))


class ActorCriticEvents(UpdateTimingEvents):
    """Training statistics of the actor-critic trainers (A2C, PPO); ``substep`` is the slot index."""

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

    @epoch_mean
    def reward_scale(self, value: float) -> None:
        """The divisor of the rewards (``reward_scaling``; critic values and losses are in the scaled unit)."""
