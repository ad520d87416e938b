"""ImitationEvents: what behavioural cloning reports per update (train) and per validation pass (eval)."""

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
from maze.env.log_stats.log_stats import LogStats
from maze.train.event_log import TrainerEventLog

__all__ = ["ImitationEvents", "ImitationStats"]

EventMethod = TypeVar("EventMethod", bound=Callable[..., Any])


def _mean_over_updates(*grouping: str) -> Callable[[EventMethod], EventMethod]:
    """Raw values per update, averaged over the logging period, one statistic per ``grouping`` combination."""

    def decorate(method: EventMethod) -> EventMethod:
        method = define_step_stats(None)(method)
        method = define_episode_stats(np.mean)(method)
        method = define_epoch_stats(np.mean)(method)
        return define_stats_grouping(*grouping)(method)

    return decorate


class ImitationEvents:
    """Statistics of the imitation learning trainers.

    ``step_key`` is the policy network the value belongs to (the sub-step key, or the actor
    for separate agent networks), ``action`` the action head. Under ``train`` each value is
    the mean over the updates since the last evaluation; under ``eval`` it is computed on the
    whole validation set. Training updates log their losses every update and the entropy,
    accuracy/error and gradient norm every ``DIAGNOSTICS_EVERY``-th update (see
    :mod:`~maze.train.trainers.bc.trainer`).
    """

    @_mean_over_updates("step_key", "action")
    def discrete_accuracy(self, step_key: Any, action: str, value: float) -> None:
        """Share of recorded Discrete, MultiDiscrete or MultiBinary entries that the most likely action matches."""

    @_mean_over_updates("step_key", "action")
    def continuous_abs_error(self, step_key: Any, action: str, value: float) -> None:
        """Mean absolute difference between the policy's most likely action and the recorded action (Box heads)."""

    @_mean_over_updates("step_key", "action")
    def action_loss(self, step_key: Any, action: str, value: float) -> None:
        """Mean negative log-likelihood of an action head's recorded actions."""

    @_mean_over_updates("step_key")
    def policy_loss(self, step_key: Any, value: float) -> None:
        """Mean negative log-likelihood of the recorded actions (minus the entropy bonus)."""

    @_mean_over_updates("step_key")
    def policy_entropy(self, step_key: Any, value: float) -> None:
        """Mean entropy of the policy's action distribution."""

    @_mean_over_updates("step_key")
    def policy_l2_norm(self, step_key: Any, value: float) -> None:
        """L2 norm of the network's parameters."""

    @_mean_over_updates("step_key")
    def policy_grad_norm(self, step_key: Any, value: float) -> None:
        """L2 norm of the network's gradients."""


class ImitationStats:
    """Weighted running means of :class:`ImitationEvents` values, turned into statistics in one go.

    Updates add plain floats (no event record per update, which would cost more than a
    small network's gradient step); :meth:`reduce` records each mean once.
    """

    def __init__(self) -> None:
        self._totals: dict[tuple[Callable, tuple[tuple[str, Any], ...]], list[float]] = {}

    def add(self, event: Callable, value: float, weight: float = 1.0, **groups: Any) -> None:
        """Adds ``value`` (with ``weight``) to the mean of ``event`` for the ``groups`` (e.g. ``step_key=0``)."""
        key = (event, tuple(groups.items()))
        total = self._totals.get(key)
        if total is None:
            self._totals[key] = [value * weight, weight]
        else:
            total[0] += value * weight
            total[1] += weight

    def __bool__(self) -> bool:
        """Whether any value was added since the last :meth:`reduce`."""
        return bool(self._totals)

    def mean(self, event: Callable, **groups: Any) -> float:
        """The current mean of ``event`` for ``groups``."""
        total, weight = self._totals[event, tuple(groups.items())]
        return total / weight

    def reduce(self) -> LogStats:
        """The statistics of all means; starts new means."""
        events = TrainerEventLog(ImitationEvents)
        for (event, groups), (total, weight) in self._totals.items():
            events.record(event, **dict(groups), value=total / weight)
        self._totals = {}
        return events.epoch_stats()
