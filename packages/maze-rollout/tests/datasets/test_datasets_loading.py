"""InMemoryDataset loading from files and directories, errors, workers and splits."""

from __future__ import annotations

import operator
import os

import pytest
from maze.env.core.actor import ActorID
from maze.env.trajectory_recording import (
    SpacesRecord,
    SpacesTrajectoryRecord,
    StructuredSpacesRecord,
    TrajectoryLoadError,
    TrajectoryWriterFile,
)
from maze.rollout.datasets import (
    DatasetSubset,
    DeadEndClippingTrajectoryProcessor,
    InMemoryDataset,
    TrajectoryConversionError,
    random_split,
)


def spaces_episode(episode_id: str, n_steps: int, terminated: bool = True) -> SpacesTrajectoryRecord:
    episode = SpacesTrajectoryRecord(id=episode_id)
    for i in range(n_steps):
        last = i == n_steps - 1
        record = SpacesRecord(ActorID(0, 0), {"x": [episode_id, i]}, {"a": i}, 0.0, terminated=terminated and last)
        episode.append(StructuredSpacesRecord([record]))
    return episode


@pytest.fixture
def spaces_dir(tmp_path):
    """Episodes a (3 steps), b (5 steps) and c (2 steps) as spaces records; c sits in a sub-directory."""
    writer = TrajectoryWriterFile(tmp_path / "data")
    writer.write(spaces_episode("a", 3))
    writer.write(spaces_episode("b", 5))
    TrajectoryWriterFile(tmp_path / "data" / "more").write(spaces_episode("c", 2))
    return tmp_path / "data"


def episode_of(item) -> str:
    return item.observation["x"][0]


def test_a_directory_gives_every_file_below_it_in_path_order(spaces_dir):
    dataset = InMemoryDataset(spaces_dir)
    assert [path.name for path in dataset.files] == ["a.traj.npz", "b.traj.npz", "c.traj.npz"]
    assert [episode_of(item) for item in dataset] == ["a"] * 3 + ["b"] * 5 + ["c"] * 2
    assert [item.observation["x"][1] for item in dataset[:3]] == [0, 1, 2]
    assert repr(dataset) == "InMemoryDataset(3 episodes, 10 items)"


def test_a_list_of_files_and_directories_keeps_the_given_order(spaces_dir):
    dataset = InMemoryDataset([spaces_dir / "more", str(spaces_dir / "b.traj.npz"), spaces_dir / "a.traj.npz"])
    assert [episode_of(item) for item in dataset] == ["c"] * 2 + ["b"] * 5 + ["a"] * 3


def test_the_processor_applies_to_every_episode(spaces_dir):
    dataset = InMemoryDataset(spaces_dir, trajectory_processor=DeadEndClippingTrajectoryProcessor(clip_k=2))
    assert [len(trajectory) for trajectory in dataset.trajectories] == [1, 3, 0]
    assert len(dataset) == 4


@pytest.mark.parametrize("deserialize_in_main_thread", [False, True])
def test_workers_give_the_items_of_a_serial_load(spaces_dir, deserialize_in_main_thread):
    serial = InMemoryDataset(spaces_dir)
    parallel = InMemoryDataset(spaces_dir, n_workers=2, deserialize_in_main_thread=deserialize_in_main_thread)
    assert [(item.observation, item.action, item.terminated) for item in parallel] == [
        (item.observation, item.action, item.terminated) for item in serial
    ]


def test_missing_paths_and_empty_directories_are_named(tmp_path):
    with pytest.raises(TrajectoryLoadError, match="nowhere does not exist"):
        InMemoryDataset(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TrajectoryLoadError, match=r"no trajectory files \(\*\.traj\.npz\|\*\.pkl\) found in .*empty"):
        InMemoryDataset(tmp_path / "empty")
    with pytest.raises(ValueError, match="n_workers >= 1"):
        InMemoryDataset(tmp_path, n_workers=0)


def test_a_file_without_a_trajectory_record_is_named(spaces_dir):
    (spaces_dir / "z_stray.pkl").write_bytes(b"not a pickle")
    with pytest.raises(TrajectoryLoadError, match="z_stray.pkl cannot be loaded"):
        InMemoryDataset(spaces_dir, n_workers=2)


def test_a_failing_processor_is_reported_with_the_file(spaces_dir):
    class Failing(DeadEndClippingTrajectoryProcessor):
        def process(self, trajectory):
            if trajectory.id == "b":
                raise RuntimeError("boom")
            return trajectory

    with pytest.raises(
        TrajectoryConversionError, match=r"b\.traj\.npz could not be converted or processed \(RuntimeError: boom"
    ):
        InMemoryDataset(spaces_dir, trajectory_processor=Failing(clip_k=0), n_workers=2)


def test_a_dying_worker_gives_an_error_instead_of_a_hang(cutting_recording):
    with pytest.raises(TrajectoryConversionError, match="worker process died"):
        InMemoryDataset(cutting_recording.directory, lambda: os._exit(3), n_workers=2)


class _FailsToUnpickle:
    """A conversion env factory that cannot be rebuilt in another process."""

    def __call__(self):
        raise AssertionError("never called")

    def __reduce__(self):
        return operator.truediv, (1, 0)


def test_a_factory_the_workers_cannot_receive_is_reported(spaces_dir):
    with pytest.raises(TrajectoryConversionError, match=r"could not receive .*ZeroDivisionError.*n_workers=1"):
        InMemoryDataset(spaces_dir, _FailsToUnpickle(), n_workers=2)


def test_random_split_by_counts_and_fractions_covers_the_dataset_once(spaces_dir):
    dataset = InMemoryDataset(spaces_dir)
    first, second = dataset.random_split([7, 3], seed=0)
    assert (len(first), len(second)) == (7, 3)
    assert sorted(first.indices + second.indices) == list(range(10))
    assert [item.observation for item in first] == [dataset[i].observation for i in first.indices]
    assert [len(part) for part in random_split(dataset, [0.5, 0.25, 0.25], seed=1)] == [5, 3, 2]
    assert [len(part) for part in random_split(list(range(3)), [0.8, 0.2])] == [2, 1]  # largest remainder rounding


def test_random_split_is_reproducible_with_a_seed(spaces_dir):
    dataset = InMemoryDataset(spaces_dir)
    assert dataset.random_split([0.6, 0.4], seed=3)[0].indices == dataset.random_split([0.6, 0.4], seed=3)[0].indices
    assert dataset.random_split([0.6, 0.4], seed=3)[0].indices != dataset.random_split([0.6, 0.4], seed=4)[0].indices


@pytest.mark.parametrize(
    ("lengths", "message"),
    [([5, 4], "sum to 9, but the dataset has 10"), ([0.5, 0.4], "must sum to 1"), ([11, -1], "must not be negative")],
)
def test_random_split_rejects_lengths_that_do_not_add_up(spaces_dir, lengths, message):
    with pytest.raises(ValueError, match=message):
        InMemoryDataset(spaces_dir).random_split(lengths)


def test_train_validation_split_rounds_the_validation_share(spaces_dir):
    dataset = InMemoryDataset(spaces_dir)
    train, validation = dataset.train_validation_split(0.26, seed=0)
    assert isinstance(train, DatasetSubset) and (len(train), len(validation)) == (7, 3)
    assert set(train.indices).isdisjoint(validation.indices)
    assert len(train[1:3]) == 2 and train[0] is dataset[train.indices[0]]
    with pytest.raises(ValueError, match=r"validation_fraction must lie in \[0, 1\]"):
        dataset.train_validation_split(1.5)


@pytest.mark.parametrize(("safe", "trusted_modules"), [(False, ()), (True, ("os",))])
def test_a_dataset_named_by_a_run_directory_config_cannot_lower_the_safety_of_loading(
    spaces_dir, safe: bool, trusted_modules: tuple[str, ...]
) -> None:
    """Its worker processes load without the caller's trusted scope, so the dataset refuses before it starts them."""
    from maze.env.utils.trust import UntrustedTargetError, trusted_targets_only

    with trusted_targets_only("'runs/x/.hydra/config.yaml'"), pytest.raises(UntrustedTargetError, match="cannot"):
        InMemoryDataset(spaces_dir, n_workers=2, safe=safe, trusted_modules=trusted_modules)
