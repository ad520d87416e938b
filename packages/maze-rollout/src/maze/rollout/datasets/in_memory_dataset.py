"""InMemoryDataset: recorded episodes as observation/action items, held in memory (no torch)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise
from typing import Any, Callable, Optional, Union, overload

import numpy as np
from maze.env.trajectory_recording.spaces_records import SpacesRecord, SpacesTrajectoryRecord
from maze.rollout.datasets.loading import InputData, find_trajectory_files, load_trajectories
from maze.rollout.datasets.trajectory_processor import IdentityTrajectoryProcessor, TrajectoryProcessor

__all__ = ["InMemoryDataset", "DatasetSubset", "random_split"]


class InMemoryDataset(Sequence[SpacesRecord]):
    """Every recorded sub-step of a set of trajectory files, as observation/action items.

    Each item is a :class:`SpacesRecord`: ``observation`` and ``action`` dicts, the
    ``actor_id`` that acted, ``reward``, ``terminated``/``truncated``, ``info`` and, with
    :class:`IdentityWithNextObservationTrajectoryProcessor`, ``next_observation``. Items run
    episode by episode in file order, sub-step by sub-step; a flat env gives one item per
    recorded step.

    Recorded MazeStates (:class:`StateTrajectoryRecord` files, what rollouts write) are
    converted with the env from ``conversion_env_factory``, through
    ``get_observation_and_action_dicts``: pass the env *with the wrappers the policy will
    see* (e.g. observation normalization) so the items match its observation space.
    Recorded spaces (:class:`SpacesTrajectoryRecord` files) are taken as they are.

    Trajectory files are data-only files (``*.traj.npz``: plain arrays and JSON, read within
    checked bounds) or pickles (``*.pkl``: opt-in and earlier versions' files, read with an
    allow-listed, allocation-bounded unpickler); see
    :mod:`maze.env.trajectory_recording.trajectory_files`. Name the package of your own env's
    MazeState/MazeAction classes in ``trusted_modules``.

    Args:
        input_data: A trajectory file or directory (every ``*.traj.npz`` and ``*.pkl`` below it),
            or a list of them.
        conversion_env_factory: Builds the conversion env; needed for MazeState records.
        n_workers: Processes that load files in parallel (1: load in this process). Each
            builds its own conversion env; factory and processor travel with cloudpickle.
        trajectory_processor: Applied to each episode (default: identity).
        deserialize_in_main_thread: Load everything in this process whatever ``n_workers``
            says (for factories, processors or records that cannot be sent to worker
            processes, and for debugging).
        safe: Use the allow-listed unpickler (default); ``False`` unpickles anything, for
            files you or your own pipeline wrote.
        trusted_modules: Modules whose classes loading may rebuild besides maze's.
        allocation_budget: Bytes loading one file may allocate; None: 64 times the file's size
            plus 64 MiB (see :func:`~maze.env.trajectory_recording.trajectory_files.load_trajectory`).

    Raises:
        ValueError: ``n_workers`` is less than 1.
        TrajectoryLoadError: A path is missing, no file is found, or a file is truncated or
            corrupt; the message names the file.
        TrajectoryConversionError: An episode cannot be converted or processed; the message
            names the file.

    Example::

        dataset = InMemoryDataset("trajectory_data", lambda: GymMazeEnv("LunarLander-v3"), n_workers=2)
        train, validation = dataset.train_validation_split(0.2, seed=0)
        item = train[0]  # item.observation["observation"].shape == (8,), item.action["action"] in 0..3
    """

    def __init__(
        self,
        input_data: InputData,
        conversion_env_factory: Optional[Callable[[], Any]] = None,
        n_workers: int = 1,
        trajectory_processor: Optional[TrajectoryProcessor] = None,
        deserialize_in_main_thread: bool = False,
        safe: bool = True,
        trusted_modules: Sequence[str] = (),
        allocation_budget: Optional[int] = None,
    ) -> None:
        if n_workers < 1:
            raise ValueError(f"InMemoryDataset needs n_workers >= 1, got {n_workers}")
        self.files = find_trajectory_files(input_data)
        processor = trajectory_processor if trajectory_processor is not None else IdentityTrajectoryProcessor()
        self.trajectories: list[SpacesTrajectoryRecord] = load_trajectories(
            self.files,
            conversion_env_factory,
            processor,
            n_workers,
            deserialize_in_main_thread,
            safe,
            trusted_modules,
            allocation_budget,
        )
        self._items: list[SpacesRecord] = [
            record for trajectory in self.trajectories for step in trajectory.step_records for record in step
        ]

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> SpacesRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[SpacesRecord]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[SpacesRecord, list[SpacesRecord]]:
        return self._items[index]

    def __repr__(self) -> str:
        return f"InMemoryDataset({len(self.trajectories)} episodes, {len(self)} items)"

    def random_split(self, lengths: Sequence[Union[int, float]], seed: Optional[int] = None) -> list[DatasetSubset]:
        """Splits the items at random into disjoint subsets (see :func:`random_split`)."""
        return random_split(self, lengths, seed)

    def train_validation_split(
        self, validation_fraction: float, seed: Optional[int] = None
    ) -> tuple[DatasetSubset, DatasetSubset]:
        """Splits the items at random into a training and a validation subset.

        Args:
            validation_fraction: Share of the items for validation, in ``[0, 1]`` (the
                count is rounded to the nearest integer).
            seed: Seed of the shuffle (None: a fresh random split).
        """
        if not 0.0 <= validation_fraction <= 1.0:
            raise ValueError(f"validation_fraction must lie in [0, 1], got {validation_fraction}")
        n_validation = int(round(validation_fraction * len(self)))
        train, validation = random_split(self, [len(self) - n_validation, n_validation], seed)
        return train, validation


class DatasetSubset(Sequence[SpacesRecord]):
    """The items of a dataset at the given indices (a view, nothing is copied).

    Args:
        dataset: The full dataset.
        indices: Indices into ``dataset``, in the order of this subset.
    """

    def __init__(self, dataset: Sequence[SpacesRecord], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = list(indices)

    def __len__(self) -> int:
        return len(self.indices)

    @overload
    def __getitem__(self, index: int) -> SpacesRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[SpacesRecord]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[SpacesRecord, list[SpacesRecord]]:
        if isinstance(index, slice):
            return [self.dataset[i] for i in self.indices[index]]
        return self.dataset[self.indices[index]]

    def __repr__(self) -> str:
        return f"DatasetSubset({len(self)} of {len(self.dataset)} items)"


def random_split(
    dataset: Sequence[SpacesRecord], lengths: Sequence[Union[int, float]], seed: Optional[int] = None
) -> list[DatasetSubset]:
    """Splits a dataset at random into disjoint subsets that cover it.

    Args:
        dataset: The items to split.
        lengths: Item counts that sum to ``len(dataset)``, or fractions that sum to 1
            (counts are then rounded down and the remaining items go to the subsets with
            the largest rounding remainders, earlier subsets first on ties).
        seed: Seed of the shuffle (None: a fresh random split).

    Returns:
        One subset per entry of ``lengths``.

    Raises:
        ValueError: Negative lengths, or counts/fractions that do not add up.
    """
    counts = _split_counts(len(dataset), lengths)
    order = np.random.default_rng(seed).permutation(len(dataset)).tolist()
    bounds = np.cumsum([0, *counts]).tolist()
    return [DatasetSubset(dataset, order[start:stop]) for start, stop in pairwise(bounds)]


def _split_counts(total: int, lengths: Sequence[Union[int, float]]) -> list[int]:
    if any(length < 0 for length in lengths):
        raise ValueError(f"split lengths must not be negative, got {list(lengths)}")
    if all(isinstance(length, (int, np.integer)) for length in lengths):
        if sum(lengths) != total:
            raise ValueError(f"split lengths {list(lengths)} sum to {sum(lengths)}, but the dataset has {total} items")
        return [int(length) for length in lengths]
    if not math.isclose(sum(lengths), 1.0, abs_tol=1e-6):
        raise ValueError(f"split fractions {list(lengths)} must sum to 1 (or give item counts that sum to {total})")
    shares = [float(length) * total for length in lengths]
    counts = [math.floor(share) for share in shares]
    by_remainder = sorted(range(len(shares)), key=lambda i: counts[i] - shares[i])
    for i in by_remainder[: total - sum(counts)]:
        counts[i] += 1
    return counts
