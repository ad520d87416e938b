"""ImitationData: recorded sub-steps stacked into tensors once, one block per policy network."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Union

import numpy as np
import torch
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording.spaces_records import SpacesRecord
from maze.train.datasets import StepBatch, stack_spaces_records

__all__ = ["ImitationData", "NetworkBatch", "NetworkRows"]


@dataclass
class NetworkRows:
    """Recorded sub-steps that one policy network acts on.

    Attributes:
        actor_id: An actor the network serves (picks the network and its action space).
        observations: Observation key -> ``[m, *shape]``.
        actions: Action head -> ``[m, *head_shape]``.
    """

    actor_id: ActorID
    observations: dict[str, torch.Tensor]
    actions: dict[str, torch.Tensor]


NetworkBatch = dict[Any, NetworkRows]
"""Policy network key -> the rows of that network."""


class ImitationData:
    """The items of a trajectory dataset as tensors, grouped by the policy network that acts on them.

    Stacking happens once, so minibatches are plain index selections: a flat env has one
    block, a multi-step env one per sub-step (e.g. Cutting-2D: piece selection and cut),
    and sub-steps with separate agent networks one per actor.

    Args:
        records: The items (an ``InMemoryDataset``, a subset of one, or a list of SpacesRecords).
        network_key: Maps an item's actor to the key of the policy network serving it
            (``TorchPolicy.network_key``).
        device: Where the tensors live.

    Raises:
        ConfigurationError: Items of one network have different observation or action keys.
    """

    def __init__(
        self,
        records: Sequence[SpacesRecord],
        network_key: Callable[[ActorID], Any],
        device: Union[str, torch.device] = "cpu",
    ) -> None:
        keys = [network_key(record.actor_id) for record in records]
        self.keys = list(dict.fromkeys(keys))
        groups: dict[Any, list[SpacesRecord]] = {key: [] for key in self.keys}
        for key, record in zip(keys, records, strict=True):
            groups[key].append(record)
        self.blocks: dict[Any, StepBatch] = {}
        self.actor_ids: dict[Any, ActorID] = {}
        for key, group in groups.items():
            try:
                self.blocks[key] = stack_spaces_records(group, f"policy network {key!r}").to(device)
            except ValueError as error:
                raise ConfigurationError(
                    f"the dataset mixes differently shaped items ({error}); were its trajectories recorded on "
                    "different envs?"
                ) from None
            self.actor_ids[key] = group[0].actor_id
        block_of = np.asarray([self.keys.index(key) for key in keys], dtype=np.int64) if keys else np.zeros(0, int)
        self._block_of = block_of
        self._row_of = np.zeros(len(keys), dtype=np.int64)
        for index in range(len(self.keys)):
            members = block_of == index
            self._row_of[members] = np.arange(int(members.sum()))
        self.device = torch.device(device)

    def __len__(self) -> int:
        return len(self._block_of)

    def sizes(self) -> dict[Any, int]:
        """Items per policy network."""
        return {key: len(block.actor_ids) for key, block in self.blocks.items()}

    def select(self, indices: np.ndarray) -> NetworkBatch:
        """The items at ``indices`` (positions in the dataset), grouped by network.

        Args:
            indices: ``[m]`` integer positions.

        Returns:
            Network key -> its rows; networks without rows are left out.
        """
        if len(self.keys) == 1:  # rows are dataset positions
            return {self.keys[0]: self._rows(self.keys[0], indices)}
        blocks = self._block_of[indices]
        selected: NetworkBatch = {}
        for position, key in enumerate(self.keys):
            rows = self._row_of[indices[blocks == position]]
            if len(rows):
                selected[key] = self._rows(key, rows)
        return selected

    def minibatches(self, batch_size: int, generator: np.random.Generator) -> Iterator[NetworkBatch]:
        """One shuffled pass over all items in minibatches of ``batch_size`` (the last may be smaller)."""
        order = generator.permutation(len(self))
        for start in range(0, len(order), batch_size):
            yield self.select(order[start : start + batch_size])

    def chunks(self, size: int) -> Iterator[NetworkBatch]:
        """All items in dataset order, in chunks of at most ``size``."""
        for start in range(0, len(self), size):
            yield self.select(np.arange(start, min(start + size, len(self))))

    def _rows(self, key: Any, rows: np.ndarray) -> NetworkRows:
        block = self.blocks[key]
        index = torch.from_numpy(rows).to(self.device)
        return NetworkRows(
            self.actor_ids[key],
            {name: value[index] for name, value in block.observations.items()},
            {name: value[index] for name, value in block.actions.items()},
        )
