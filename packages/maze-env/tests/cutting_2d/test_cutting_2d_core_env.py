"""The Cutting-2D core env: cutting mechanics, inventory invariants, events, errors."""

from __future__ import annotations

import numpy as np
import pytest
from maze.env.errors import ConfigurationError
from maze.env.examples.cutting_2d import (
    Cutting2DCoreEnvironment,
    Cutting2DMazeAction,
    CuttingEvents,
    DefaultRewardAggregator,
    Inventory,
    InventoryEvents,
)
from maze.env.examples.cutting_2d.inventory import cut_residuals

PART_1_REWARDS = [-1, 0, 0, -1, 0, 0, 0, 0, 0, -1, -2, -2, -2, -2, -2]


def make_env(**overrides) -> Cutting2DCoreEnvironment:
    settings = dict(max_pieces_in_inventory=200, raw_piece_size=(100, 100), static_demand=(30, 15))
    settings.update(overrides)
    return Cutting2DCoreEnvironment(**settings)


def cut(piece_id: int, rotate: bool = False, reverse: bool = False) -> Cutting2DMazeAction:
    return Cutting2DMazeAction(piece_id=piece_id, rotate=rotate, reverse_cutting_order=reverse)


def step_events(env: Cutting2DCoreEnvironment) -> list:
    return list(env.get_step_events())


def test_part_1_action_sequence_gives_the_documented_rewards() -> None:
    env = make_env()
    state, info = env.reset()
    assert state.inventory == [(100, 100)] and info == {}
    results = [env.step(cut(0)) for _ in range(15)]
    assert [reward for _, reward, *_ in results] == PART_1_REWARDS
    assert all(not terminated and not truncated for _, _, terminated, truncated, _ in results)
    assert [info for *_, info in results] == [{"msg": "valid_cut"}] * 10 + [{"error": "invalid_cut"}] * 5


@pytest.mark.parametrize(
    ("reverse", "expected"),
    [(False, [(70, 100), (30, 85)]), (True, [(100, 85), (70, 15)])],
    ids=["x_first", "y_first"],
)
def test_cut_keeps_both_remainders_and_replenishes_the_raw_piece(reverse: bool, expected: list) -> None:
    env = make_env()
    env.reset()
    state, reward, *_ = env.step(cut(0, reverse=reverse))
    assert state.inventory == [*expected, (100, 100)]
    assert reward == -1
    assert cut_residuals((100, 100), (30, 15), reverse) == expected


def test_rotation_swaps_the_order_and_exact_fits_leave_no_remainder() -> None:
    env = make_env(raw_piece_size=(30, 15), static_demand=(15, 30))
    env.reset()
    state, reward, *_, info = env.step(cut(0))
    assert info == {"error": "invalid_cut"} and reward == -2 and state.inventory == [(30, 15)]
    state, reward, *_, info = env.step(cut(0, rotate=True))
    assert info == {"msg": "valid_cut"} and reward == -1 and state.inventory == [(30, 15)]


def test_selecting_an_empty_slot_is_reported_and_penalised_as_an_invalid_action() -> None:
    env = make_env()
    env.reset()
    state, reward, _, _, info = env.step(cut(5))
    assert info == {"error": "piece_id_out_of_bounds"} and reward == -2
    assert state.inventory == [(100, 100)]
    assert [event.interface_method for event in step_events(env)] == [
        CuttingEvents.invalid_piece_selected,
        InventoryEvents.pieces_in_inventory,
    ]


def test_inventory_never_exceeds_its_capacity_and_discards_the_oldest_piece() -> None:
    events = []

    class Recorder:
        def __getattr__(self, name):
            return lambda **attributes: events.append((name, attributes))

    inventory = Inventory(3, (10, 10), Recorder())
    for piece in [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]:
        inventory.store_piece(piece)
        assert inventory.size() <= 3
    assert inventory.pieces == [(3, 3), (4, 4), (5, 5)] and inventory.is_full()
    assert events == [("piece_discarded", {"piece": (1, 1)}), ("piece_discarded", {"piece": (2, 2)})]


def test_full_inventory_fires_piece_discarded_during_a_step() -> None:
    env = make_env(max_pieces_in_inventory=3)
    env.reset()
    env.step(cut(0))  # (70,100), (30,85), raw
    assert env.inventory.size() == 3
    state, *_ = env.step(cut(0))  # cut (70,100): two remainders, one piece must go
    assert len(state.inventory) == 3
    discarded = [
        e.attributes["piece"] for e in step_events(env) if e.interface_method is InventoryEvents.piece_discarded
    ]
    assert discarded == [(30, 85)]
    assert state.inventory == [(100, 100), (40, 100), (30, 85)]


def test_random_play_keeps_the_inventory_invariants() -> None:
    env = make_env(max_pieces_in_inventory=12, raw_piece_size=(10, 8), static_demand=[(3, 2), (4, 4), (1, 5)])
    rng = np.random.default_rng(3)
    env.reset(seed=3)
    for _ in range(300):
        before = env.get_maze_state()
        action = cut(int(rng.integers(14)), bool(rng.integers(2)), bool(rng.integers(2)))
        state, reward, _, _, info = env.step(action)
        events = [event.interface_method for event in step_events(env)]
        assert len(state.inventory) <= 12
        assert all(0 < w <= 10 and 0 < h <= 8 for w, h in state.inventory)
        replenished = events.count(InventoryEvents.piece_replenished)
        raw_cut = info.get("msg") == "valid_cut" and before.inventory[action.piece_id] == (10, 8)
        assert replenished == int(raw_cut)
        assert reward == (-1 if raw_cut else -2 if "error" in info else 0)
        assert events.count(InventoryEvents.pieces_in_inventory) == 1
        if raw_cut:
            assert state.inventory[-1] == (10, 8)


def test_demand_list_is_cycled_and_single_orders_repeat() -> None:
    env = make_env(static_demand=[[10, 20], [5, 5], [7, 3]])
    env.reset()
    demands = []
    for _ in range(7):
        demands.append(env.get_maze_state().current_demand)
        env.step(cut(99))
    assert demands == [(10, 20), (5, 5), (7, 3)] * 2 + [(10, 20)]
    assert make_env(static_demand=(30, 15)).demand == [(30, 15)]
    env.reset()
    assert env.current_demand == (10, 20)


def test_reset_restores_the_initial_state_and_env_time_counts_steps() -> None:
    env = make_env()
    env.reset(seed=1)
    for _ in range(4):
        env.step(cut(0))
    assert env.get_env_time() == 4
    state, _ = env.reset(seed=2)
    assert state.inventory == [(100, 100)] and state.current_demand == (30, 15)


def test_maze_states_are_snapshots() -> None:
    env = make_env()
    state, _ = env.reset()
    env.step(cut(0))
    assert state.inventory == [(100, 100)]
    state.inventory.append((1, 1))
    assert env.inventory.pieces == [(70, 100), (30, 85), (100, 100)]


def test_reward_aggregator_from_a_config() -> None:
    config = {
        "_target_": "maze.env.examples.cutting_2d.DefaultRewardAggregator",
        "invalid_action_penalty": -5,
        "raw_piece_usage_penalty": -0.5,
    }
    env = make_env(reward_aggregator=config)
    assert isinstance(env.reward_aggregator, DefaultRewardAggregator)
    env.reset()
    assert env.step(cut(0))[1] == -0.5
    assert env.step(cut(50))[1] == -5


@pytest.mark.parametrize(
    ("overrides", "culprit"),
    [
        ({"max_pieces_in_inventory": 0}, "max_pieces_in_inventory"),
        ({"max_pieces_in_inventory": 2.5}, "max_pieces_in_inventory"),
        ({"raw_piece_size": (100,)}, "raw_piece_size"),
        ({"raw_piece_size": (100, -1)}, "raw_piece_size"),
        ({"static_demand": []}, "static_demand"),
        ({"static_demand": [(30, 15), (0, 5)]}, r"static_demand\[1\]"),
        ({"static_demand": (120, 10)}, "does not fit"),
        ({"reward_aggregator": {"_target_": "maze.env.examples.cutting_2d.NoSuchReward"}}, "NoSuchReward"),
    ],
)
def test_bad_arguments_raise_errors_naming_the_culprit(overrides: dict, culprit: str) -> None:
    with pytest.raises(ConfigurationError, match=culprit):
        make_env(**overrides)


def test_rotated_order_that_fits_only_rotated_is_accepted() -> None:
    assert make_env(static_demand=(15, 100), raw_piece_size=(100, 30)).demand == [(15, 100)]


def test_sizes_from_numpy_arrays_and_omegaconf_lists() -> None:
    from omegaconf import OmegaConf

    config = OmegaConf.create({"raw": [4, 3], "demand": [[1, 2], [2, 2]]})
    env = make_env(raw_piece_size=config.raw, static_demand=config.demand)
    assert env.raw_piece_size == (4, 3) and env.demand == [(1, 2), (2, 2)]
    env = make_env(raw_piece_size=np.array([10, 10]), static_demand=np.array([3, 2]))
    assert env.raw_piece_size == (10, 10) and env.demand == [(3, 2)]
