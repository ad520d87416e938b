"""V-trace off-policy targets (Espeholt et al. 2018, "IMPALA", section 4), pure and vectorized over envs.

All arrays are time-major ``[T, N]`` like :mod:`maze.train.returns`, and episode ends are
handled the same way as there: ``terminated[t]`` bootstraps nothing, ``truncated[t]``
bootstraps ``next_values[t]`` (the value of the observation the episode was cut off at),
nothing flows from transition ``t + 1`` back to ``t`` across an episode end, and the last
transition of the rollout bootstraps ``next_values[T - 1]``.

With ``rho_t = pi(a_t | x_t) / mu(a_t | x_t)`` (target policy ``pi``, behaviour policy ``mu``):

* ``delta_t = min(rho_bar, rho_t) * (r_t + gamma * V(x_{t+1}) - V(x_t))``
* ``c_t = lambda * min(1, rho_t)``
* ``v_t - V(x_t) = delta_t + gamma * c_t * (v_{t+1} - V(x_{t+1}))`` (the V-trace target ``v_t``)
* policy-gradient advantage ``min(rho_bar_pg, rho_t) * (r_t + gamma * v_{t+1} - V(x_t))``

On-policy (``rho = 1``) with ``lambda = 1`` the targets are the n-step bootstrapped returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import torch
from maze.train.returns import DiscountType

__all__ = [
    "VTraceReturns",
    "from_importance_weights",
    "from_logits",
    "get_log_rhos",
    "log_probs_from_logits_and_actions_and_spaces",
]


@dataclass
class VTraceReturns:
    """The V-trace targets of a rollout.

    Attributes:
        vs: ``[T, N]`` targets of the value function.
        pg_advantages: ``[T, N]`` advantages for the policy gradient.
        clipped_rhos: ``[T, N]`` importance weights clipped at ``clip_rho_threshold``.
        log_rhos: ``[T, N]`` the log importance weights the targets were computed from.
    """

    vs: np.ndarray
    pg_advantages: np.ndarray
    clipped_rhos: np.ndarray
    log_rhos: np.ndarray


def _clipped(rhos: np.ndarray, threshold: Optional[float]) -> np.ndarray:
    return rhos if threshold is None else np.minimum(threshold, rhos)


def from_importance_weights(
    log_rhos: np.ndarray,
    rewards: np.ndarray,
    values: np.ndarray,
    next_values: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    gamma: DiscountType,
    lambda_: float = 1.0,
    clip_rho_threshold: Optional[float] = 1.0,
    clip_pg_rho_threshold: Optional[float] = 1.0,
) -> VTraceReturns:
    """V-trace targets and policy-gradient advantages from log importance weights (see the module docs).

    Args:
        log_rhos: ``[T, N]`` ``log pi(a_t | x_t) - log mu(a_t | x_t)``.
        rewards: ``[T, N]`` rewards.
        values: ``[T, N]`` values ``V(x_t)`` of the learner's critic.
        next_values: ``[T, N]`` values of the following observations; read only where
            ``truncated`` is set and at ``t = T - 1``.
        terminated: ``[T, N]`` bool, the episode ended in a terminal state.
        truncated: ``[T, N]`` bool, the episode was cut off.
        gamma: Discount, a float or ``[T]`` per transition.
        lambda_: Trace-cutting factor in ``[0, 1]`` of the ``c_t`` weights.
        clip_rho_threshold: ``rho_bar`` of the value targets (None: no clipping).
        clip_pg_rho_threshold: ``rho_bar_pg`` of the policy-gradient advantages (None: no clipping).

    Returns:
        The targets, advantages and clipped weights (float32).
    """
    steps = rewards.shape[0]
    discount = np.broadcast_to(np.asarray(gamma, dtype=np.float64), (steps,))[:, None]
    values = np.asarray(values, dtype=np.float64)
    rhos = np.exp(np.asarray(log_rhos, dtype=np.float64))
    clipped_rhos = _clipped(rhos, clip_rho_threshold)
    cs = lambda_ * np.minimum(1.0, rhos)
    alive = 1.0 - np.asarray(terminated, dtype=np.float64)
    continues = 1.0 - np.logical_or(terminated, truncated)
    continues[-1] = 0.0
    following = np.array(next_values, dtype=np.float64)
    following[:-1] = np.where(continues[:-1] > 0, values[1:], following[:-1])
    deltas = clipped_rhos * (rewards + discount * alive * following - values)
    corrections = np.empty_like(deltas)
    running = np.zeros(rewards.shape[1:], dtype=np.float64)
    for t in range(steps - 1, -1, -1):
        running = deltas[t] + discount[t] * cs[t] * continues[t] * running
        corrections[t] = running
    vs = values + corrections
    next_vs = np.array(next_values, dtype=np.float64)
    next_vs[:-1] = np.where(continues[:-1] > 0, vs[1:], next_vs[:-1])
    pg_advantages = _clipped(rhos, clip_pg_rho_threshold) * (rewards + discount * alive * next_vs - values)
    return VTraceReturns(
        vs=vs.astype(np.float32),
        pg_advantages=pg_advantages.astype(np.float32),
        clipped_rhos=clipped_rhos.astype(np.float32),
        log_rhos=np.asarray(log_rhos, dtype=np.float32),
    )


def log_probs_from_logits_and_actions_and_spaces(
    logits: Mapping[str, torch.Tensor], actions: Mapping[str, torch.Tensor], distribution_mapper: Any
) -> torch.Tensor:
    """Joint log-probabilities of dict actions under the distributions of dict logits.

    Args:
        logits: Action head -> ``[*batch, *logits_shape]``.
        actions: Action head -> ``[*batch, *head_shape]``.
        distribution_mapper: The policy's :class:`~maze.distributions.distribution_mapper.DistributionMapper`.

    Returns:
        ``[*batch]`` log-probabilities, summed over the action heads.
    """
    return distribution_mapper.logits_dict_to_distribution(logits).log_prob(actions)


def get_log_rhos(target_log_probs: torch.Tensor, behaviour_log_probs: torch.Tensor) -> torch.Tensor:
    """``[*batch]`` log importance weights ``log pi - log mu`` (no gradient flows through them)."""
    return (target_log_probs - behaviour_log_probs).detach()


def from_logits(
    behaviour_logits: Mapping[str, torch.Tensor],
    target_logits: Mapping[str, torch.Tensor],
    actions: Mapping[str, torch.Tensor],
    distribution_mapper: Any,
    **kwargs: Any,
) -> VTraceReturns:
    """V-trace from the logits of the behaviour and target policies over a ``[T, N]`` rollout.

    Args:
        behaviour_logits: Action head -> ``[T, N, *logits_shape]`` of the acting policy.
        target_logits: Action head -> ``[T, N, *logits_shape]`` of the learner's policy.
        actions: Action head -> ``[T, N, *head_shape]``, the actions taken.
        distribution_mapper: Maps logits to distributions (see
            :func:`log_probs_from_logits_and_actions_and_spaces`).
        **kwargs: The other arguments of :func:`from_importance_weights` (rewards, values, ...).

    Returns:
        The V-trace targets.
    """
    target = log_probs_from_logits_and_actions_and_spaces(target_logits, actions, distribution_mapper)
    behaviour = log_probs_from_logits_and_actions_and_spaces(behaviour_logits, actions, distribution_mapper)
    return from_importance_weights(get_log_rhos(target, behaviour).cpu().numpy(), **kwargs)
