"""MazeSeeding and set_seeds_globally."""

from __future__ import annotations

import logging
import random

import numpy as np
import pytest
from maze.env import ConfigurationError
from maze.env.utils import seeding
from maze.env.utils.seeding import MAX_SEED, MazeSeeding, register_global_seeder, set_seeds_globally


def _sequence(maze_seeding: MazeSeeding) -> tuple[list[int], list[int]]:
    env_seeds = [maze_seeding.generate_env_instance_seed() for _ in range(5)]
    agent_seeds = [maze_seeding.generate_agent_instance_seed() for _ in range(5)]
    return env_seeds, agent_seeds


def test_same_seeds_give_the_same_sequences() -> None:
    assert _sequence(MazeSeeding(1, 2)) == _sequence(MazeSeeding(1, 2))
    env_seeds, agent_seeds = _sequence(MazeSeeding(1, 2))
    assert env_seeds != _sequence(MazeSeeding(3, 2))[0]
    assert agent_seeds == _sequence(MazeSeeding(3, 2))[1]  # env and agent streams are independent
    assert all(isinstance(seed, int) and 0 <= seed < MAX_SEED for seed in env_seeds + agent_seeds)
    assert len(set(env_seeds)) == 5


def test_agent_draws_do_not_shift_env_seeds() -> None:
    plain = MazeSeeding(4, 5)
    interleaved = MazeSeeding(4, 5)
    interleaved.generate_agent_instance_seed()
    assert plain.generate_env_instance_seed() == interleaved.generate_env_instance_seed()


def test_global_seeds_and_flags_are_kept() -> None:
    maze_seeding = MazeSeeding(np.int64(11), 12, cudnn_determinism_flag=True)
    assert (maze_seeding.env_global_seed, maze_seeding.agent_global_seed) == (11, 12)
    assert type(maze_seeding.env_global_seed) is int
    assert maze_seeding.cudnn_determinism_flag is True


def test_missing_base_seed_is_drawn() -> None:
    maze_seeding = MazeSeeding(None, None)
    assert 0 <= maze_seeding.env_global_seed < MAX_SEED
    assert 0 <= maze_seeding.agent_global_seed < MAX_SEED


def test_explicit_seeds_are_cycled() -> None:
    maze_seeding = MazeSeeding(0, 0, explicit_env_seeds=[7, 8, 9], explicit_agent_seeds=[1])
    assert maze_seeding.get_explicit_env_seeds(7) == [7, 8, 9, 7, 8, 9, 7]
    assert maze_seeding.get_explicit_env_seeds(2) == [7, 8]
    assert maze_seeding.get_explicit_agent_seeds(3) == [1, 1, 1]
    assert maze_seeding.get_explicit_env_seeds(0) == []


def test_explicit_seeds_are_shuffled_reproducibly() -> None:
    seeds = list(range(100, 110))

    def shuffled(env_seed: int) -> list[int]:
        return MazeSeeding(env_seed, 0, explicit_env_seeds=seeds, shuffle_seeds=True).get_explicit_env_seeds(25)

    first = shuffled(3)
    assert first == shuffled(3)
    assert first != shuffled(4)
    assert sorted(first[:10]) == seeds and sorted(first[10:20]) == seeds  # every round visits each seed once
    assert set(first[20:]) <= set(seeds)
    assert first[:10] != seeds


def test_seeds_are_generated_without_explicit_lists() -> None:
    seeds = MazeSeeding(2, 3).get_explicit_env_seeds(6)
    assert seeds == MazeSeeding(2, 3).get_explicit_env_seeds(6)
    assert len(seeds) == 6 and all(isinstance(seed, int) and 0 <= seed < MAX_SEED for seed in seeds)
    assert MazeSeeding(2, 3).get_explicit_agent_seeds(6) != seeds
    with pytest.raises(ValueError, match="-1 seeds"):
        MazeSeeding(2, 3).get_explicit_env_seeds(-1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"env_seed": -1, "agent_seed": 0}, r"env_seed must be an int in \[0, 2\*\*31\), got -1"),
        ({"env_seed": 0, "agent_seed": 2**31}, "agent_seed must be an int"),
        ({"env_seed": 1.5, "agent_seed": 0}, "got 1.5"),
        ({"env_seed": True, "agent_seed": 0}, "got True"),
        ({"env_seed": 0, "agent_seed": 0, "explicit_env_seeds": [1, "2"]}, r"explicit_env_seeds\[1\] must be"),
        ({"env_seed": 0, "agent_seed": 0, "explicit_agent_seeds": []}, "explicit_agent_seeds is empty"),
    ],
)
def test_invalid_seeds_are_rejected(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        MazeSeeding(**kwargs)


def test_set_seeds_globally_seeds_random_and_numpy(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=seeding.__name__):
        set_seeds_globally(123, info_txt="test run")
    first = (random.random(), np.random.rand())
    set_seeds_globally(123)
    assert (random.random(), np.random.rand()) == first
    assert "test run: seeded random, numpy globally with 123" in caplog.text
    with pytest.raises(ConfigurationError, match="seed must be an int"):
        set_seeds_globally(-5)


def test_registered_seeders_are_called(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seeding, "_GLOBAL_SEEDERS", dict(seeding._GLOBAL_SEEDERS))
    received: list[int] = []
    register_global_seeder("recorder", received.append)
    set_seeds_globally(77)
    assert received == [77]


def test_from_config_reads_the_seeding_group():
    seeding = MazeSeeding.from_config(
        {"env_base_seed": 3, "agent_base_seed": 4, "explicit_env_seeds": [7, 8], "cudnn_determinism_flag": True}
    )
    assert (seeding.env_global_seed, seeding.agent_global_seed, seeding.cudnn_determinism_flag) == (3, 4, True)
    assert seeding.get_explicit_env_seeds(3) == [7, 8, 7]
    assert MazeSeeding.from_config(None).shuffle_seeds is False
