"""UniformReplayBuffer (ring buffer, seeded sampling), rollout transitions and the stacking helpers."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from maze.train.replay import TransitionBatch, UniformReplayBuffer
from maze.train.replay.substep_transitions import rollout_to_transitions
from maze.train.rollout.collector import RolloutBatch, SubStepBatch
from maze.train.utils import (
    compute_gradient_norm,
    stack_numpy_dict_list,
    stack_torch_dict_list,
    unstack_numpy_list_dict,
)
from train_test_support import transitions


def test_ring_buffer_keeps_the_newest_transitions_up_to_its_capacity() -> None:
    buffer = UniformReplayBuffer(buffer_size=5, seed=0)
    buffer.add_transitions(transitions(0, 3))
    assert len(buffer) == 3
    buffer.add_transitions(transitions(3, 4))  # wraps around: 5 and 6 overwrite 0 and 1
    assert len(buffer) == 5
    stored = sorted(int(reward) for reward in buffer._storage["rewards"])
    assert stored == [2, 3, 4, 5, 6]
    assert buffer._storage["rewards"].tolist() == [5, 6, 2, 3, 4]  # overwritten in ring order
    buffer.add_transitions(transitions(7, 12))  # more than the capacity at once: the newest 5 survive
    assert len(buffer) == 5
    assert sorted(buffer._storage["rewards"].tolist()) == [14, 15, 16, 17, 18]
    batch = buffer.sample_batch(64)
    # every field of a sampled transition belongs to the same stored transition
    ids = batch.rewards
    assert torch.equal(batch.actions["action"].float(), ids)
    assert torch.equal(batch.observations["observation"][:, 1], -ids)
    assert torch.equal(batch.next_observations["observation"][:, 0], ids + 1)
    assert set(ids.tolist()) <= {14.0, 15.0, 16.0, 17.0, 18.0}


def test_single_transitions_and_empty_buffer() -> None:
    buffer = UniformReplayBuffer(buffer_size=3, seed=0)
    with pytest.raises(ValueError, match="empty"):
        buffer.sample_batch(2)
    single = transitions(4, 1)
    buffer.add_transition(
        TransitionBatch(
            observations={"observation": single.observations["observation"][0]},
            actions={"action": single.actions["action"][0]},
            rewards=single.rewards[0],
            next_observations={"observation": single.next_observations["observation"][0]},
            dones=single.dones[0],
        )
    )
    assert len(buffer) == 1
    assert buffer.sample_batch(2).rewards.tolist() == [4.0, 4.0]


def test_sampling_is_seeded_and_reuses_its_batch_arrays() -> None:
    def draws(seed: int) -> list[list[float]]:
        buffer = UniformReplayBuffer(buffer_size=100, seed=seed)
        buffer.add_transitions(transitions(0, 100))
        return [buffer.sample_batch(8).rewards.tolist() for _ in range(3)]

    assert draws(1) == draws(1)
    assert draws(1) != draws(2)
    buffer = UniformReplayBuffer(buffer_size=100, seed=0)
    buffer.add_transitions(transitions(0, 100))
    first = buffer.sample_batch(8)
    second = buffer.sample_batch(8)
    assert first.rewards.data_ptr() == second.rewards.data_ptr()  # preallocated, no new arrays per batch


def test_rollout_transitions_take_final_observations_of_truncated_episodes() -> None:
    observations = np.arange(3 * 2, dtype=np.float32).reshape(3, 2, 1)  # [T=3, N=2, 1]
    terminated = np.zeros((3, 2), dtype=bool)
    truncated = np.zeros((3, 2), dtype=bool)
    terminated[0, 1] = True
    truncated[1, 0] = True
    rollout = RolloutBatch(
        substeps=[SubStepBatch((0, 0), {"observation": observations}, {"action": np.zeros((3, 2), np.int64)})],
        rewards=np.ones((3, 2), np.float32),
        terminated=terminated,
        truncated=truncated,
        final_observations=[(1, 0, {"observation": np.array([99.0], np.float32)})],
        next_observation={"observation": np.array([[6.0], [7.0]], np.float32)},
    )
    batch = rollout_to_transitions(rollout)
    assert batch.observations["observation"][:, 0].tolist() == [0, 1, 2, 3, 4, 5]
    assert batch.next_observations["observation"][:, 0].tolist() == [2, 3, 99, 5, 6, 7]
    assert batch.dones.tolist() == [0, 1, 0, 0, 0, 0]  # truncation is not termination


def test_stack_and_unstack_are_inverse() -> None:
    items = [{"a": np.array([i, i + 1]), "b": np.float32(i)} for i in range(4)]
    stacked = stack_numpy_dict_list(items)
    assert stacked["a"].shape == (4, 2) and stacked["b"].shape == (4,)
    restored = unstack_numpy_list_dict(stacked)
    assert len(restored) == 4
    for item, back in zip(items, restored, strict=True):
        assert item.keys() == back.keys()
        assert all(np.array_equal(item[key], back[key]) for key in item)
    tensors = stack_torch_dict_list(items)
    assert torch.equal(tensors["a"], torch.as_tensor(stacked["a"]))


def test_gradient_norm() -> None:
    first, second, unused = (torch.nn.Parameter(torch.zeros(2)) for _ in range(3))
    first.grad, second.grad = torch.tensor([3.0, 0.0]), torch.tensor([0.0, 4.0])
    assert compute_gradient_norm([first, second, unused]) == pytest.approx(5.0)
    assert compute_gradient_norm([unused]) == 0.0
