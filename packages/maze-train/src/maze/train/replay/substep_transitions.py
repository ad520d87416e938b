"""Transitions per sub-step of structured envs: each actor's next observation is its own next one.

In an env with ``K`` sub-steps per env step (slots, see :mod:`maze.train.rollout.collector`),
the actor of slot ``k`` acts at calls ``k, K + k, 2K + k, ...``. Its transition started at
call ``c`` ends when it acts again, at call ``c + K``:

* the **reward** is the sum of the rewards of calls ``c .. c + K - 1`` (up to the episode's
  end, if it ends in between);
* the **next observation** is the observation slot ``k`` gets at call ``c + K``; after a
  truncation at call ``c + K - 1`` it is the observation the episode was cut off at;
* **done** marks an episode that terminated within the window (no bootstrapping). A
  transition whose episode was truncated before the window's last call has no next
  observation of its actor and is dropped.

A transition may end in the next rollout (always with one-step rollouts), so
:class:`SubStepTransitions` keeps the last env step of the previous rollout of its envs:
use one per vector env whose consecutive rollouts it receives.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Optional

import numpy as np
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.train.replay.replay_buffer import TransitionBatch
from maze.train.rollout.collector import RolloutBatch, SubStepBatch

__all__ = ["SubStepTransitions", "rollout_to_transitions"]


def rollout_to_transitions(rollout: RolloutBatch) -> TransitionBatch[np.ndarray]:
    """The ``T * N`` transitions of a rollout of a flat env (time-major order).

    The next observation of step ``t`` is the observation of step ``t + 1`` (after the rollout:
    ``rollout.next_observation``); for truncated episodes it is the observation the episode
    was cut off at. ``dones`` marks terminated episodes only.

    Raises:
        ConfigurationError: If the env has several sub-steps per env step.
    """
    if rollout.n_slots != 1:
        raise ConfigurationError(
            f"replay buffers hold transitions of flat envs; this env has {rollout.n_slots} sub-steps per env step"
        )
    substep = rollout.substeps[0]
    steps, envs = rollout.rewards.shape
    next_observations = {}
    for key, value in substep.observations.items():
        following = np.concatenate([value[1:], rollout.next_observation[key][None]], axis=0)
        for call, env, observation in rollout.final_observations:
            following[call, env] = observation[key]
        next_observations[key] = following.reshape(steps * envs, *value.shape[2:])
    return TransitionBatch(
        observations={
            key: value.reshape(steps * envs, *value.shape[2:]) for key, value in substep.observations.items()
        },
        actions={key: value.reshape(steps * envs, *value.shape[2:]) for key, value in substep.actions.items()},
        rewards=rollout.rewards.reshape(-1).astype(np.float32, copy=False),
        next_observations=next_observations,
        dones=rollout.terminated.reshape(-1).astype(np.float32),
    )


class SubStepTransitions:
    """Turns consecutive rollouts of one vector env into transitions per sub-step key (see the module docs).

    Flat envs (one slot) give exactly :func:`rollout_to_transitions`, keyed by their sub-step key.
    """

    def __init__(self) -> None:
        self._previous: Optional[RolloutBatch] = None
        """The last env step of the previous rollout (envs with several slots only)."""

    def __call__(self, rollout: RolloutBatch) -> dict[StepKeyType, TransitionBatch[np.ndarray]]:
        """The transitions completed by ``rollout``, by sub-step key (slots of one key joined, slot order).

        Raises:
            ConfigurationError: For the rollout of an env with dynamic agents (no fixed sub-steps).
        """
        if not isinstance(rollout, RolloutBatch):
            raise ConfigurationError(
                "replay buffers take envs whose sub-steps repeat in a fixed order; this env has dynamic agents "
                "(-1 in agent_counts_dict). Train it with an on-policy algorithm (algorithm=ppo, a2c or impala)"
            )
        if rollout.n_slots == 1:
            return {rollout.substeps[0].actor_id[0]: rollout_to_transitions(rollout)}
        extended, prefix = _joined(self._previous, rollout)
        self._previous = _last_step(rollout)
        steps = extended.n_steps
        finals = {(call, env): observation for call, env, observation in extended.final_observations}
        parts: dict[StepKeyType, list[TransitionBatch[np.ndarray]]] = defaultdict(list)
        for k, slot in enumerate(extended.substeps):
            starts = range(prefix, steps) if k == 0 else range(steps - 1)
            for start in starts:
                part = _transition(extended, k, start, finals)
                if part is not None:
                    parts[slot.actor_id[0]].append(part)
        return {key: _concatenate(batches) for key, batches in parts.items()}


def _transition(
    rollout: RolloutBatch, k: int, start: int, finals: dict[tuple[int, int], dict[str, np.ndarray]]
) -> Optional[TransitionBatch[np.ndarray]]:
    """The ``N`` transitions of slot ``k`` started at env step ``start`` (None if all are dropped)."""
    slots = rollout.n_slots
    first = start * slots + k
    window = slice(first, first + slots)
    ended = rollout.terminated[window] | rollout.truncated[window]  # [K, N]
    upto_end = (np.cumsum(ended, axis=0) - ended) == 0  # calls up to and including the first end
    rewards = (rollout.rewards[window] * upto_end).sum(axis=0, dtype=np.float32)
    terminated = (rollout.terminated[window] & upto_end).any(axis=0)
    truncated_early = (rollout.truncated[window][:-1] & upto_end[:-1]).any(axis=0) & ~terminated
    substep = rollout.substeps[k]
    if k == 0 and start == rollout.n_steps - 1:
        following = {key: np.array(value) for key, value in rollout.next_observation.items()}
    else:
        following = {key: np.array(value[start + 1]) for key, value in substep.observations.items()}
    last_call = first + slots - 1
    for env in np.flatnonzero(rollout.truncated[last_call] & upto_end[-1]):
        for key, value in finals[(last_call, int(env))].items():
            following[key][env] = value
    keep = ~truncated_early
    if not keep.any():
        return None
    return TransitionBatch(
        observations={key: value[start][keep] for key, value in substep.observations.items()},
        actions={key: value[start][keep] for key, value in substep.actions.items()},
        rewards=rewards[keep],
        next_observations={key: value[keep] for key, value in following.items()},
        dones=terminated[keep].astype(np.float32),
    )


def _last_step(rollout: RolloutBatch) -> RolloutBatch:
    """The rollout's last env step as a rollout of one step."""
    slots, last = rollout.n_slots, rollout.n_steps - 1
    calls = slice(last * slots, (last + 1) * slots)
    return RolloutBatch(
        substeps=[_slice_substep(substep, slice(last, last + 1)) for substep in rollout.substeps],
        rewards=rollout.rewards[calls],
        terminated=rollout.terminated[calls],
        truncated=rollout.truncated[calls],
        final_observations=[
            (call - last * slots, env, observation)
            for call, env, observation in rollout.final_observations
            if call >= last * slots
        ],
        next_observation=rollout.next_observation,
        next_actor_id=rollout.next_actor_id,
    )


def _joined(previous: Optional[RolloutBatch], rollout: RolloutBatch) -> tuple[RolloutBatch, int]:
    """``rollout`` with ``previous`` (one env step) in front, and the number of prefixed env steps."""
    if previous is None:
        return rollout, 0
    offset = previous.rewards.shape[0]
    joined = RolloutBatch(
        substeps=[
            _concatenate_substeps(before, after)
            for before, after in zip(previous.substeps, rollout.substeps, strict=True)
        ],
        rewards=np.concatenate([previous.rewards, rollout.rewards]),
        terminated=np.concatenate([previous.terminated, rollout.terminated]),
        truncated=np.concatenate([previous.truncated, rollout.truncated]),
        final_observations=[
            *previous.final_observations,
            *((call + offset, env, observation) for call, env, observation in rollout.final_observations),
        ],
        next_observation=rollout.next_observation,
        next_actor_id=rollout.next_actor_id,
    )
    return joined, previous.n_steps


def _slice_substep(substep: SubStepBatch, steps: slice) -> SubStepBatch:
    return SubStepBatch(
        actor_id=substep.actor_id,
        observations={key: value[steps] for key, value in substep.observations.items()},
        actions={key: value[steps] for key, value in substep.actions.items()},
    )


def _concatenate_substeps(before: SubStepBatch, after: SubStepBatch) -> SubStepBatch:
    return SubStepBatch(
        actor_id=after.actor_id,
        observations={
            key: np.concatenate([before.observations[key], value]) for key, value in after.observations.items()
        },
        actions={key: np.concatenate([before.actions[key], value]) for key, value in after.actions.items()},
    )


def _concatenate(batches: list[TransitionBatch[np.ndarray]]) -> TransitionBatch[np.ndarray]:
    if len(batches) == 1:
        return batches[0]
    return TransitionBatch(
        observations={key: np.concatenate([b.observations[key] for b in batches]) for key in batches[0].observations},
        actions={key: np.concatenate([b.actions[key] for b in batches]) for key in batches[0].actions},
        rewards=np.concatenate([b.rewards for b in batches]),
        next_observations={
            key: np.concatenate([b.next_observations[key] for b in batches]) for key in batches[0].next_observations
        },
        dones=np.concatenate([b.dones for b in batches]),
    )
