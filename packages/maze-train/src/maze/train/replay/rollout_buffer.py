"""Whole rollouts as replay-buffer entries (SAC's ``split_rollouts_into_transitions: false``).

A rollout is the ``T`` consecutive env steps one env contributes to one ``collect_rollouts``
(``n_rollout_steps``; it runs on across episode ends, with their done and truncation flags).
:class:`RolloutReplayBuffer` stores each as one entry and samples whole rollouts, so the ``T``
steps of a rollout stay together and in order in every training batch, e.g. for sequence
models. The one-step targets are unchanged: each transition carries its own next observation
and done flag. Workers hand the buffer a rollout of ``N`` envs as :func:`env_rollouts`, the
``N * T`` transitions env by env.
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np
import torch
from maze.env.core.actor import StepKeyType
from maze.env.errors import ConfigurationError
from maze.train.replay.replay_buffer import BaseReplayBuffer, TransitionBatch, UniformReplayBuffer
from maze.train.replay.substep_transitions import rollout_to_transitions
from maze.train.rollout.collector import RolloutBatch

__all__ = ["RolloutReplayBuffer", "env_rollouts"]

_FLAT_ONLY = (
    "algorithm.split_rollouts_into_transitions=false stores whole rollouts of flat envs (one actor per env step); "
    "{found}. Set algorithm.split_rollouts_into_transitions=true"
)


class RolloutReplayBuffer(BaseReplayBuffer):
    """A ring buffer of whole rollouts of ``rollout_length`` steps, sampled uniformly rollout by rollout.

    A grouping layer over :class:`UniformReplayBuffer`, whose entries carry a leading
    rollout-length dimension (its arrays are ``[capacity, T, *shape]``). ``buffer_size`` bounds
    the transitions: the ring holds ``buffer_size // rollout_length`` rollouts, and a new rollout
    overwrites the oldest one whole. ``len`` counts transitions (``T`` per rollout), as for
    :class:`UniformReplayBuffer`; :attr:`n_rollouts` counts rollouts.

    Args:
        buffer_size: The most transitions to hold (at least ``rollout_length``).
        rollout_length: ``T``, the steps of every rollout.
        seed: Seed of the sampling generator (None: random).

    Raises:
        ConfigurationError: If ``buffer_size`` is less than ``rollout_length``.
    """

    def __init__(self, buffer_size: int, rollout_length: int, seed: Optional[int] = None) -> None:
        if buffer_size < rollout_length:
            raise ConfigurationError(
                f"a replay buffer of {buffer_size} transitions cannot hold one rollout of {rollout_length} steps; "
                "set algorithm.replay_buffer_size to at least algorithm.n_rollout_steps"
            )
        self.rollout_length = int(rollout_length)
        self.rollouts = UniformReplayBuffer(buffer_size // rollout_length, seed)
        """The ring buffer of rollouts (entries ``[T, *shape]``)."""
        self.buffer_size = self.rollouts.buffer_size * self.rollout_length

    @property
    def n_rollouts(self) -> int:
        """The number of stored rollouts."""
        return len(self.rollouts)

    def __len__(self) -> int:
        return len(self.rollouts) * self.rollout_length

    def add_transitions(self, batch: TransitionBatch[np.ndarray]) -> None:
        """Adds ``R`` whole rollouts given as ``R * T`` transitions, rollout by rollout (``T`` consecutive steps each).

        Raises:
            ValueError: If the number of transitions is no multiple of ``T``.
        """
        count, steps = len(batch), self.rollout_length
        if count % steps:
            raise ValueError(f"{count} transitions are no whole number of rollouts of {steps} steps")
        self.rollouts.add_transitions(batch.map(lambda value: value.reshape(count // steps, steps, *value.shape[1:])))

    def sample_batch(
        self, n_samples: int, learner_device: Union[str, torch.device] = "cpu"
    ) -> TransitionBatch[torch.Tensor]:
        """``n_samples`` rollouts drawn uniformly (with replacement), flattened to ``n_samples * T`` transitions.

        Returns:
            Arrays ``[n_samples * T, *shape]``: the ``T`` steps of the first sampled rollout in
            order, then those of the second, ... (views of the buffer's batch arrays, valid until
            the next call).

        Raises:
            ValueError: If the buffer is empty.
        """
        return self.rollouts.sample_batch(n_samples, learner_device).map(lambda tensor: tensor.flatten(0, 1))


def env_rollouts(rollout: RolloutBatch) -> dict[StepKeyType, TransitionBatch[np.ndarray]]:
    """A flat env's rollout of ``N`` envs as the ``N * T`` transitions of its sub-step key, env by env.

    Steps ``0 .. T - 1`` of env 0, then those of env 1, ... (transitions as in
    :func:`~maze.train.replay.substep_transitions.rollout_to_transitions`).

    Raises:
        ConfigurationError: For a structured env (several actors per env step) or one with dynamic agents.
    """
    if not isinstance(rollout, RolloutBatch):
        raise ConfigurationError(_FLAT_ONLY.format(found="this env has dynamic agents"))
    if rollout.n_slots != 1:
        raise ConfigurationError(_FLAT_ONLY.format(found=f"this env has {rollout.n_slots} actors per env step"))
    steps, envs = rollout.n_steps, rollout.n_envs
    by_time = rollout_to_transitions(rollout)  # [T * N], time-major
    by_env = by_time.map(lambda value: value.reshape(steps, envs, *value.shape[1:]).swapaxes(0, 1))
    return {rollout.substeps[0].actor_id[0]: by_env.map(lambda value: value.reshape(steps * envs, *value.shape[2:]))}
