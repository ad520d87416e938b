"""Replay buffers: preallocated ring buffers of transitions with seeded uniform sampling."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Optional, TypeVar, Union

import numpy as np
import torch
from maze.env.errors import ConfigurationError
from maze.train.memory_limits import check_allocation

__all__ = ["BaseReplayBuffer", "TransitionBatch", "UniformReplayBuffer"]

ArrayT = TypeVar("ArrayT", np.ndarray, torch.Tensor)


@dataclass
class TransitionBatch(Generic[ArrayT]):
    """``B`` transitions ``(s, a, r, s', done)`` of one sub-step (of a flat env: of the env), as arrays or tensors.

    Attributes:
        observations: Observation key -> ``[B, *shape]``.
        actions: Action head -> ``[B, *shape]``.
        rewards: ``[B]`` float32.
        next_observations: Observation key -> ``[B, *shape]``, what the env showed after the action.
        dones: ``[B]`` float32, 1.0 where the episode terminated (no bootstrapping from ``s'``);
            truncated episodes count as not done.
    """

    observations: dict[str, ArrayT]
    actions: dict[str, ArrayT]
    rewards: ArrayT
    next_observations: dict[str, ArrayT]
    dones: ArrayT

    def __len__(self) -> int:
        return int(self.rewards.shape[0])

    def map(self, function: Callable[[ArrayT], Any]) -> TransitionBatch:
        """A batch of ``function`` applied to every array or tensor (e.g. a slice, a reshape, a device move)."""
        return _to_batch(_map(_fields(self), function))


class BaseReplayBuffer(ABC):
    """Stores transitions and samples training batches from them."""

    buffer_size: int
    """Capacity in transitions."""
    rollout_length: Optional[int] = None
    """Steps of the whole rollout every entry holds (None: entries are single transitions).

    Workers hand such a buffer the transitions of each env's rollout, rollout by rollout
    (see :mod:`maze.train.replay.rollout_buffer`).
    """

    @abstractmethod
    def add_transitions(self, batch: TransitionBatch[np.ndarray]) -> None:
        """Adds ``B`` transitions (numpy arrays)."""

    def add_transition(self, transition: TransitionBatch[np.ndarray]) -> None:
        """Adds a single transition given without batch dimension (arrays ``[*shape]``, scalar reward and done)."""
        self.add_transitions(
            TransitionBatch(
                observations={key: np.asarray(value)[None] for key, value in transition.observations.items()},
                actions={key: np.asarray(value)[None] for key, value in transition.actions.items()},
                rewards=np.asarray(transition.rewards, dtype=np.float32).reshape(1),
                next_observations={key: np.asarray(value)[None] for key, value in transition.next_observations.items()},
                dones=np.asarray(transition.dones, dtype=np.float32).reshape(1),
            )
        )

    @abstractmethod
    def sample_batch(
        self, n_samples: int, learner_device: Union[str, torch.device] = "cpu"
    ) -> TransitionBatch[torch.Tensor]:
        """``n_samples`` entries (transitions, or whole rollouts flattened) as tensors on ``learner_device``."""

    @abstractmethod
    def __len__(self) -> int:
        """The number of stored transitions."""


class UniformReplayBuffer(BaseReplayBuffer):
    """A ring buffer of at most ``buffer_size`` transitions, sampled uniformly with replacement.

    The arrays are allocated once, at the first :meth:`add_transitions` (shapes and dtypes
    of its entries); when full, new transitions overwrite the oldest. Sampling draws from
    its own seeded generator and gathers into preallocated batch arrays that the returned
    CPU tensors share: a sampled batch stays valid until the next :meth:`sample_batch`.

    Args:
        buffer_size: Capacity in transitions.
        seed: Seed of the sampling generator (None: random).
    """

    def __init__(self, buffer_size: int, seed: Optional[int] = None) -> None:
        if buffer_size < 1:
            raise ConfigurationError(f"replay buffer size must be at least 1, got {buffer_size}")
        self.buffer_size = int(buffer_size)
        self.rng = np.random.default_rng(seed)
        self._storage: Optional[dict[str, Any]] = None
        self._position = 0
        self._size = 0
        self._batch: Optional[dict[str, Any]] = None
        self._batch_tensors: Optional[TransitionBatch[torch.Tensor]] = None

    def __len__(self) -> int:
        return self._size

    def add_transitions(self, batch: TransitionBatch[np.ndarray]) -> None:
        """Writes ``B`` transitions at the ring position (overwriting the oldest when full)."""
        fields = _fields(batch)
        if self._storage is None:
            self._storage = _allocate(fields, self.buffer_size, "algorithm.replay_buffer_size", "the replay buffer")
        count = len(batch)
        if count > self.buffer_size:  # only the newest buffer_size transitions survive
            fields = _map(fields, lambda value: value[count - self.buffer_size :])
            count = self.buffer_size
        index = (self._position + np.arange(count)) % self.buffer_size
        _zip_apply(self._storage, fields, lambda store, value: store.__setitem__(index, value))
        self._position = (self._position + count) % self.buffer_size
        self._size = min(self._size + count, self.buffer_size)

    def sample_batch(
        self, n_samples: int, learner_device: Union[str, torch.device] = "cpu"
    ) -> TransitionBatch[torch.Tensor]:
        """``n_samples`` transitions drawn uniformly (with replacement), as tensors on ``learner_device``.

        Raises:
            ValueError: If the buffer is empty.
        """
        if self._storage is None or self._size == 0:
            raise ValueError("cannot sample from an empty replay buffer")
        if self._batch is None or len(self._batch["rewards"]) != n_samples:
            self._batch = _allocate(self._storage, n_samples, "algorithm.batch_size", "a training batch")
            self._batch_tensors = _to_batch(_map(self._batch, torch.from_numpy))
        index = self.rng.integers(0, self._size, size=n_samples)
        _zip_apply(self._storage, self._batch, lambda store, out: np.take(store, index, axis=0, out=out))
        assert self._batch_tensors is not None
        device = torch.device(learner_device)
        if device.type == "cpu":
            return self._batch_tensors
        return self._batch_tensors.map(lambda tensor: tensor.to(device, non_blocking=True))


def _allocate(like: dict[str, Any], entries: int, key: str, what: str) -> dict[str, Any]:
    """Arrays of ``entries`` rows shaped like the rows of ``like`` (checked against the machine's RAM first).

    Raises:
        ConfigurationError: Naming the config ``key`` of the size when the arrays would not fit the machine's RAM.
    """
    row_bytes: list[int] = []
    _map(like, lambda value: row_bytes.append(int(np.prod(value.shape[1:], dtype=np.int64)) * value.dtype.itemsize))
    check_allocation(key, f"{entries} entries", entries * sum(row_bytes), what)
    return _map(like, lambda value: np.empty((entries, *value.shape[1:]), value.dtype))


def _fields(batch: TransitionBatch) -> dict[str, Any]:
    return {
        "observations": batch.observations,
        "actions": batch.actions,
        "rewards": batch.rewards,
        "next_observations": batch.next_observations,
        "dones": batch.dones,
    }


def _to_batch(fields: dict[str, Any]) -> TransitionBatch:
    return TransitionBatch(**fields)


def _map(tree: Any, function: Any) -> Any:
    """Applies ``function`` to every array of a nest of dicts."""
    if isinstance(tree, Mapping):
        return {key: _map(value, function) for key, value in tree.items()}
    return function(tree)


def _zip_apply(first: Any, second: Any, function: Any) -> None:
    """Calls ``function`` on every pair of arrays of two nests of dicts with the same keys."""
    if isinstance(first, Mapping):
        missing = set(first) ^ set(second)
        if missing:
            raise ValueError(f"transitions have other keys than the replay buffer: {sorted(missing)}")
        for key in first:
            _zip_apply(first[key], second[key], function)
    else:
        function(first, second)
