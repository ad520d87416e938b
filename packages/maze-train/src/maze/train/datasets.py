"""The torch view of trajectory datasets: a ``torch.utils.data.Dataset`` and a collate function.

:class:`~maze.rollout.datasets.InMemoryDataset` (and its splits) hold
:class:`~maze.env.trajectory_recording.SpacesRecord` items without torch. Wrap one with
:class:`TorchTrajectoryDataset` and batch it with :func:`collate_spaces_records`, which
groups the items of a batch by sub-step key (each sub-step has its own spaces and policy)
and stacks their observation and action dicts into tensors::

    dataset = InMemoryDataset("trajectory_data", lambda: GymMazeEnv("LunarLander-v3"))
    train, validation = dataset.train_validation_split(0.2, seed=0)
    loader = DataLoader(TorchTrajectoryDataset(train), batch_size=100, shuffle=True,
                        collate_fn=collate_spaces_records)
    for batch in loader:
        observations = batch[0].observations["observation"]  # (B, 8) float32
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Union

import numpy as np
import torch
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.trajectory_recording.spaces_records import SpacesRecord
from torch.utils.data import Dataset

__all__ = ["TorchTrajectoryDataset", "StepBatch", "collate_spaces_records", "stack_spaces_records"]


class TorchTrajectoryDataset(Dataset):
    """A torch map-style dataset over trajectory items (nothing is copied).

    Args:
        items: An ``InMemoryDataset``, a ``DatasetSubset`` of one, or any sequence of
            :class:`SpacesRecord` s.
    """

    def __init__(self, items: Sequence[SpacesRecord]) -> None:
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: int) -> SpacesRecord:
        return self.items[index]


@dataclass
class StepBatch:
    """The items of one sub-step key in a batch, stacked along a new first dimension.

    Attributes:
        observations: Observation key -> tensor of shape ``(B, *observation shape)``.
        actions: Action key -> tensor of shape ``(B, *action shape)`` (``(B,)`` for Discrete).
        actor_ids: The actor of each row, length ``B``.
    """

    observations: dict[str, torch.Tensor]
    actions: dict[str, torch.Tensor]
    actor_ids: list[ActorID]

    def to(self, device: Union[str, torch.device]) -> StepBatch:
        """Returns the batch with its tensors on ``device``."""
        return StepBatch(
            {key: value.to(device) for key, value in self.observations.items()},
            {key: value.to(device) for key, value in self.actions.items()},
            self.actor_ids,
        )


def collate_spaces_records(records: Sequence[SpacesRecord]) -> dict[StepKeyType, StepBatch]:
    """Groups a batch of items by sub-step key and stacks each group into tensors.

    Numpy dtypes are kept (float32 observations stay float32, Discrete actions become
    int64); Python floats become float64, ints int64, bools bool.

    Args:
        records: The items of one batch.

    Returns:
        Sub-step key -> :class:`StepBatch`, keys in order of first appearance. A flat env
        gives ``{0: batch}``.

    Raises:
        ValueError: Items of the same sub-step key have different observation or action
            keys (e.g. records of different envs mixed into one dataset).
    """
    groups: dict[StepKeyType, list[SpacesRecord]] = {}
    for record in records:
        groups.setdefault(record.actor_id.step_key, []).append(record)
    return {key: stack_spaces_records(group, f"sub-step {key!r}") for key, group in groups.items()}


def stack_spaces_records(records: Sequence[SpacesRecord], what: str = "items") -> StepBatch:
    """Stacks the observation and action dicts of items that share their keys into one :class:`StepBatch`.

    Args:
        records: Items with the same observation and action keys (e.g. of one sub-step).
        what: Names the items in error messages.

    Raises:
        ValueError: Items have different observation or action keys.
    """
    return StepBatch(
        observations=_stack([record.observation for record in records], f"observations of {what}"),
        actions=_stack([record.action for record in records], f"actions of {what}"),
        actor_ids=[record.actor_id for record in records],
    )


def _stack(dicts: list[dict[str, Any]], what: str) -> dict[str, torch.Tensor]:
    keys = dicts[0].keys()
    for other in dicts[1:]:
        if other.keys() != keys:
            raise ValueError(f"cannot stack the {what}: one item has the keys {sorted(keys)}, another {sorted(other)}")
    return {key: torch.from_numpy(np.stack([np.asarray(item[key]) for item in dicts])) for key in keys}
