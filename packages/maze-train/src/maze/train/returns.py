"""Advantages and value targets of on-policy rollouts: pure, vectorized over envs.

All arrays are time-major, ``[T, N]`` for ``T`` transitions of ``N`` envs. Episode ends
are handled the gymnasium way:

* ``terminated[t]``: the episode reached a terminal state; nothing is bootstrapped.
* ``truncated[t]``: the episode was cut off (time limit); the value of the observation
  it was cut off at (``next_values[t]``) is bootstrapped.
* Either way, nothing flows back from transition ``t + 1`` to ``t``: it belongs to the
  next episode of that env.
* The last transition of the rollout bootstraps ``next_values[T - 1]``.
"""

from __future__ import annotations

from typing import Union

import numpy as np

__all__ = ["compute_gae", "compute_linked_gae", "compute_returns"]

DiscountType = Union[float, np.ndarray]
"""The discount per transition: one float, or ``[T]`` (e.g. 1 between the sub-steps of one env step)."""


def _per_step(value: DiscountType, steps: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=np.float64), (steps,))


def compute_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    next_values: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    gamma: DiscountType,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Generalized advantage estimation (Schulman et al. 2016) and the matching value targets.

    ``delta[t] = rewards[t] + gamma * (1 - terminated[t]) * V(s[t+1]) - values[t]`` and
    ``advantage[t] = delta[t] + gamma * gae_lambda * advantage[t + 1]`` within an episode.
    ``V(s[t+1])`` is ``values[t + 1]`` inside an episode and ``next_values[t]`` where the
    episode was truncated or the rollout ends. With ``gae_lambda=1`` the targets are the
    bootstrapped discounted returns.

    Args:
        rewards: ``[T, N]`` rewards.
        values: ``[T, N]`` value estimates of the observations acted on.
        next_values: ``[T, N]`` value estimates of the following observations; read only
            where ``truncated`` is set and at ``t = T - 1``.
        terminated: ``[T, N]`` bool, the episode ended in a terminal state.
        truncated: ``[T, N]`` bool, the episode was cut off.
        gamma: Discount, a float or ``[T]`` per transition.
        gae_lambda: Bias/variance trade-off in ``[0, 1]``.

    Returns:
        ``(advantages, value_targets)``, both ``[T, N]`` float32; ``value_targets = advantages + values``.
    """
    steps = rewards.shape[0]
    discount = _per_step(gamma, steps)
    alive = 1.0 - np.asarray(terminated, dtype=np.float64)
    continues = 1.0 - np.logical_or(terminated, truncated)
    following = np.empty_like(values, dtype=np.float64)
    following[:-1] = np.where(continues[:-1] > 0, values[1:], next_values[:-1])
    following[-1] = next_values[-1]
    deltas = rewards + discount[:, None] * alive * following - values
    advantages = np.empty_like(deltas)
    running = np.zeros(rewards.shape[1:], dtype=np.float64)
    for t in range(steps - 1, -1, -1):
        carry = continues[t] if t < steps - 1 else 0.0
        running = deltas[t] + discount[t] * gae_lambda * carry * running
        advantages[t] = running
    return advantages.astype(np.float32), (advantages + values).astype(np.float32)


def compute_returns(
    rewards: np.ndarray,
    next_values: np.ndarray,
    terminated: np.ndarray,
    truncated: np.ndarray,
    gamma: DiscountType,
) -> np.ndarray:
    """Discounted returns, bootstrapped where episodes are truncated and where the rollout ends.

    ``R[t] = rewards[t] + gamma * R[t + 1]`` within an episode; ``R[t] = rewards[t]`` at a
    termination; ``R[t] = rewards[t] + gamma * next_values[t]`` at a truncation and at ``T - 1``.

    Args:
        rewards: ``[T, N]`` rewards.
        next_values: ``[T, N]`` value estimates of the following observations (see :func:`compute_gae`).
        terminated: ``[T, N]`` bool.
        truncated: ``[T, N]`` bool.
        gamma: Discount, a float or ``[T]`` per transition.

    Returns:
        ``[T, N]`` float32 returns.
    """
    steps = rewards.shape[0]
    discount = _per_step(gamma, steps)
    terminated = np.asarray(terminated, dtype=bool)
    ends = np.logical_or(terminated, truncated)
    returns = np.empty(rewards.shape, dtype=np.float64)
    following = np.where(terminated[-1], 0.0, next_values[-1])
    for t in range(steps - 1, -1, -1):
        if t < steps - 1:
            following = np.where(ends[t], np.where(terminated[t], 0.0, next_values[t]), returns[t + 1])
        returns[t] = rewards[t] + discount[t] * following
    return returns.astype(np.float32)


def compute_linked_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    next_values: np.ndarray,
    next_index: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
    """GAE over transitions linked into trajectories by index (per-actor trajectories of dynamic agents).

    ``delta[s] = rewards[s] + gamma * next_values[s] - values[s]`` and
    ``advantage[s] = delta[s] + gamma * gae_lambda * advantage[next_index[s]]`` where
    ``next_index[s] >= 0``. Each transition's successor comes later in the arrays.

    Args:
        rewards: ``[S]`` reward of every transition.
        values: ``[S]`` value of the observation each transition starts from.
        next_values: ``[S]`` the value bootstrapped after each transition (0 where nothing is).
        next_index: ``[S]`` int, the transition whose advantage flows back into this one
            (a larger index), or -1 where none does (the trajectory ends, or its next
            transition is not complete yet).
        gamma: Discount per transition.
        gae_lambda: Bias/variance trade-off in ``[0, 1]``.

    Returns:
        ``(advantages, value_targets)``, both ``[S]`` float32; ``value_targets = advantages + values``.
    """
    deltas = np.asarray(rewards, np.float64) + gamma * np.asarray(next_values, np.float64) - values
    advantages = deltas.copy()
    factor = gamma * gae_lambda
    for sample in np.flatnonzero(next_index >= 0)[::-1].tolist():
        advantages[sample] += factor * advantages[next_index[sample]]
    return advantages.astype(np.float32), (advantages + values).astype(np.float32)
