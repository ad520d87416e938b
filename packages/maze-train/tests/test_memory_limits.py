"""Settings that allocate memory are checked against the machine before anything is allocated."""

from __future__ import annotations

import numpy as np
import pytest
from maze.env.errors import ConfigurationError
from maze.train import memory_limits
from maze.train.distributed.es.noise_table import SharedNoiseTable
from maze.train.replay.replay_buffer import TransitionBatch, UniformReplayBuffer
from maze.train.replay.rollout_buffer import RolloutReplayBuffer

GB = 10**9


def transitions(count: int, width: int = 4) -> TransitionBatch[np.ndarray]:
    """``count`` float32 transitions with observations of ``width`` values (``8 * width + 8`` bytes each, with int64 actions)."""
    return TransitionBatch(
        observations={"observation": np.zeros((count, width), np.float32)},
        actions={"action": np.zeros(count, np.int64)},
        rewards=np.zeros(count, np.float32),
        next_observations={"observation": np.zeros((count, width), np.float32)},
        dones=np.zeros(count, np.float32),
    )


@pytest.fixture
def small_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine with 1 GB of RAM and 0.5 GB free in /dev/shm."""
    monkeypatch.setattr(memory_limits, "physical_memory", lambda: GB)
    monkeypatch.setattr(memory_limits, "shared_memory_free", lambda: GB // 2)


def test_a_noise_table_beyond_the_free_shared_memory_is_refused_before_it_is_created(
    small_machine, monkeypatch
) -> None:
    created: list[int] = []
    monkeypatch.setattr(
        "maze.train.distributed.es.noise_table.shared_memory.SharedMemory",
        lambda **kwargs: created.append(kwargs["size"]),
    )
    with pytest.raises(ConfigurationError) as raised:
        SharedNoiseTable(10**13)
    assert str(raised.value) == (
        "runner.shared_noise_table_size: 10000000000000 float32 values need 40.0 TB for the shared noise table, "
        "but this machine has 500.0 MB free in /dev/shm; lower runner.shared_noise_table_size"
    )
    assert created == []


def test_without_dev_shm_the_noise_table_is_held_against_the_ram(monkeypatch) -> None:
    monkeypatch.setattr(memory_limits, "physical_memory", lambda: GB)
    monkeypatch.setattr(memory_limits, "shared_memory_free", lambda: None)
    with pytest.raises(
        ConfigurationError, match="need 4.0 GB for the shared noise table, but this machine has 1.0 GB RAM"
    ):
        SharedNoiseTable(10**9)


def test_a_replay_buffer_beyond_the_ram_is_refused_naming_its_key(small_machine) -> None:
    buffer = UniformReplayBuffer(10**9)
    with pytest.raises(ConfigurationError) as raised:
        buffer.add_transitions(transitions(2))
    assert str(raised.value) == (
        "algorithm.replay_buffer_size: 1000000000 entries need 48.0 GB for the replay buffer, but this machine has "
        "1.0 GB RAM; lower algorithm.replay_buffer_size"
    )
    rollouts = RolloutReplayBuffer(10**9, rollout_length=10)
    with pytest.raises(ConfigurationError, match="algorithm.replay_buffer_size: 100000000 entries need 48.0 GB"):
        rollouts.add_transitions(transitions(10))


def test_a_batch_size_beyond_the_ram_is_refused_naming_its_key(small_machine) -> None:
    buffer = UniformReplayBuffer(100, seed=0)
    buffer.add_transitions(transitions(5))
    assert len(buffer.sample_batch(3)) == 3
    with pytest.raises(
        ConfigurationError, match=r"^algorithm.batch_size: 1000000000000 entries need 48.0 TB for a training batch"
    ):
        buffer.sample_batch(10**12)


def test_the_limits_come_from_the_machine() -> None:
    assert memory_limits.physical_memory() > 0
    assert memory_limits.format_bytes(512) == "512 B" and memory_limits.format_bytes(1.5e15) == "1.5 PB"
