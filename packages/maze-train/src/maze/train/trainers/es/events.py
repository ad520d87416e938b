"""ESEvents: the statistics ESTrainer writes after every iteration (``train`` prefix, console and TensorBoard)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from maze.env.log_stats.event_decorators import define_episode_stats, define_epoch_stats, define_step_stats

__all__ = ["ESEvents"]

EventMethod = TypeVar("EventMethod", bound=Callable[..., Any])


def _per_iteration(method: EventMethod) -> EventMethod:
    """One value per iteration (an ES epoch is one update), reported as it is."""
    method = define_step_stats(None)(method)
    method = define_episode_stats(np.mean)(method)
    return define_epoch_stats(np.mean)(method)


class ESEvents:
    """Event interface, defining statistics emitted by the ESTrainer."""

    @_per_iteration
    def real_time(self, value: float) -> None:
        """Seconds since training started."""

    @_per_iteration
    def total_episode_count(self, value: int) -> None:
        """Training episodes so far."""

    @_per_iteration
    def total_step_count(self, value: int) -> None:
        """Env steps of training episodes so far."""

    @_per_iteration
    def time_rollouts(self, value: float) -> None:
        """Seconds the iteration's rollouts took."""

    @_per_iteration
    def time_update(self, value: float) -> None:
        """Seconds the gradient estimate and the optimizer step took."""

    @_per_iteration
    def policy_l2_norm(self, value: float) -> None:
        """L2 norm of the flat policy parameters after the update."""

    @_per_iteration
    def policy_grad_norm(self, value: float) -> None:
        """L2 norm of the estimated gradient (with the L2 penalty term)."""

    @_per_iteration
    def update_ratio(self, value: float) -> None:
        """``|step| / |parameters|`` of the optimizer step."""

    @_per_iteration
    def aborted_rollouts(self, value: int) -> None:
        """Training rollouts of the iteration that raised ESAbortException (dropped)."""
