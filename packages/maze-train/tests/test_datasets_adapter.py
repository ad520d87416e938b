"""The torch view of InMemoryDataset: DataLoader batches of stacked observations and actions."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from maze.env.agent.random_policy import RandomPolicy
from maze.env.core.actor import ActorID
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.trajectory_recording import (
    SimpleTrajectoryRecordingSetup,
    SpacesRecord,
    SpacesTrajectoryRecord,
    StructuredSpacesRecord,
    TrajectoryWriterFile,
)
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper
from maze.rollout.datasets import InMemoryDataset
from maze.train.datasets import StepBatch, TorchTrajectoryDataset, collate_spaces_records
from torch.utils.data import DataLoader


@pytest.fixture
def cartpole_dataset(tmp_path) -> InMemoryDataset:
    """Two recorded CartPole episodes of random actions, converted through GymMazeEnv."""
    env = TrajectoryRecordingWrapper(GymMazeEnv("CartPole-v1"))
    policy = RandomPolicy(env.action_spaces_dict, seed=0)
    with SimpleTrajectoryRecordingSetup(tmp_path / "trajectory_data"):
        for seed in (0, 1):
            env.reset(seed=seed)
            done = False
            while not done:
                _, _, terminated, truncated, _ = env.step(policy.compute_action(None))
                done = terminated or truncated
    return InMemoryDataset(tmp_path / "trajectory_data", lambda: GymMazeEnv("CartPole-v1"))


def test_a_data_loader_stacks_observations_and_actions_of_the_whole_dataset(cartpole_dataset):
    loader = DataLoader(TorchTrajectoryDataset(cartpole_dataset), batch_size=8, collate_fn=collate_spaces_records)
    batches = list(loader)
    assert sum(len(batch[0].actor_ids) for batch in batches) == len(cartpole_dataset)
    first = batches[0][0]
    assert list(batches[0]) == [0]
    assert first.observations["observation"].shape == (8, 4)
    assert first.observations["observation"].dtype == torch.float32
    assert first.actions["action"].shape == (8,) and first.actions["action"].dtype == torch.int64
    assert first.actor_ids == [ActorID(0, 0)] * 8
    expected = np.stack([cartpole_dataset[i].observation["observation"] for i in range(8)])
    np.testing.assert_array_equal(first.observations["observation"].numpy(), expected)
    assert first.actions["action"].tolist() == [int(cartpole_dataset[i].action["action"]) for i in range(8)]


def test_splits_wrap_like_the_full_dataset(cartpole_dataset):
    train, validation = cartpole_dataset.train_validation_split(0.25, seed=0)
    torch_train = TorchTrajectoryDataset(train)
    assert len(torch_train) + len(TorchTrajectoryDataset(validation)) == len(cartpole_dataset)
    assert torch_train[0] is cartpole_dataset[train.indices[0]]
    loader = DataLoader(
        torch_train,
        batch_size=len(train),
        shuffle=True,
        generator=torch.Generator().manual_seed(0),
        collate_fn=collate_spaces_records,
    )
    (batch,) = list(loader)
    rows = {tuple(row) for row in batch[0].observations["observation"].tolist()}
    assert rows == {tuple(train[i].observation["observation"].tolist()) for i in range(len(train))}


def structured_items() -> list[SpacesRecord]:
    """Two env steps of a selection (actor (0, 0)) and a cutting (actor (1, 0)) sub-step."""
    items = []
    for step in range(2):
        items.append(
            SpacesRecord(ActorID(0, 0), {"inventory": np.full((3, 2), step, np.float32)}, {"piece": step}, 0.0)
        )
        items.append(SpacesRecord(ActorID(1, 0), {"piece": np.ones(2, np.float32)}, {"rotate": 1, "order": 0}, -1.0))
    return items


def test_structured_items_are_grouped_by_sub_step(tmp_path):
    episode = SpacesTrajectoryRecord(id="structured")
    items = structured_items()
    for index in (0, 2):
        episode.append(StructuredSpacesRecord(items[index : index + 2]))
    TrajectoryWriterFile(tmp_path).write(episode)
    dataset = InMemoryDataset(tmp_path)
    batch = next(iter(DataLoader(TorchTrajectoryDataset(dataset), batch_size=4, collate_fn=collate_spaces_records)))
    assert list(batch) == [0, 1]
    assert batch[0].observations["inventory"].shape == (2, 3, 2)
    assert batch[0].actions["piece"].tolist() == [0, 1]
    assert set(batch[1].actions) == {"rotate", "order"} and batch[1].actions["rotate"].shape == (2,)
    assert batch[1].actor_ids == [ActorID(1, 0)] * 2


def test_to_moves_every_tensor():
    batch = collate_spaces_records(structured_items())[0]
    moved = batch.to("meta")
    assert isinstance(moved, StepBatch) and moved.actor_ids == batch.actor_ids
    assert {tensor.device.type for tensor in [*moved.observations.values(), *moved.actions.values()]} == {"meta"}
    assert batch.observations["inventory"].device.type == "cpu"


def test_items_with_different_keys_in_one_sub_step_are_rejected():
    items = structured_items()[:1] + [SpacesRecord(ActorID(0, 0), {"other": np.zeros(2)}, {"piece": 0}, 0.0)]
    with pytest.raises(
        ValueError, match=r"cannot stack the observations of sub-step 0: .*\['inventory'\].*\['other'\]"
    ):
        collate_spaces_records(items)
