"""Dict observation/action conversions of the flat env and the recorded-data conversion."""

from __future__ import annotations

import numpy as np
from maze.env.examples.cutting_2d import (
    ActionConversion,
    Cutting2DCoreEnvironment,
    Cutting2DEnvironment,
    Cutting2DMazeAction,
    Cutting2DMazeState,
    ObservationConversion,
    maze_env_factory,
)


def sample_state() -> Cutting2DMazeState:
    return Cutting2DMazeState([(70, 100), (30, 85), (100, 100)], 5, (30, 15), (100, 100))


def test_observation_layout_and_bounds() -> None:
    conversion = ObservationConversion(raw_piece_size=(100, 100), max_pieces_in_inventory=5)
    state = sample_state()
    observation = conversion.maze_to_space(state)
    assert set(observation) == {"inventory", "inventory_size", "ordered_piece"}
    assert observation["inventory"].shape == (5, 2) and observation["inventory"].dtype == np.float32
    np.testing.assert_array_equal(observation["inventory"][3:], 0)
    np.testing.assert_array_equal(observation["inventory_size"], [3])
    np.testing.assert_array_equal(observation["ordered_piece"], [30, 15])
    assert observation in conversion.space()
    assert state.inventory == [(70, 100), (30, 85), (100, 100)]  # padding works on a copy


def test_observation_round_trip() -> None:
    conversion = ObservationConversion(raw_piece_size=(100, 100), max_pieces_in_inventory=5)
    state = sample_state()
    assert conversion.space_to_maze(conversion.maze_to_space(state)) == state


def test_action_round_trip() -> None:
    conversion = ActionConversion(max_pieces_in_inventory=5)
    space = conversion.space()
    assert set(space.spaces) == {"piece_idx", "cut_rotation", "cut_order"}
    space.seed(0)
    for _ in range(20):
        action = space.sample()
        maze_action = conversion.space_to_maze(action, None)
        assert isinstance(maze_action, Cutting2DMazeAction)
        assert conversion.maze_to_space(maze_action) == {key: int(value) for key, value in action.items()}
        assert conversion.maze_to_space(maze_action) in space
    assert conversion.space_to_maze({"piece_idx": 3, "cut_rotation": 1, "cut_order": 0}, None) == Cutting2DMazeAction(
        3, True, False
    )


def test_flat_env_records_convert_back_to_observations_and_actions() -> None:
    env = maze_env_factory(max_pieces_in_inventory=10, raw_piece_size=(100, 100), static_demand=(30, 15))
    observation, _ = env.reset(seed=0)
    maze_state = env.get_maze_state()
    action = {"piece_idx": 0, "cut_rotation": 1, "cut_order": 1}
    env.step(action)
    observations, actions = env.get_observation_and_action_dicts(maze_state, env.get_maze_action(), True)
    assert list(observations) == [0] and list(actions) == [0]
    for key, value in observation.items():
        np.testing.assert_array_equal(observations[0][key], value)
    assert actions[0] == action


def test_environment_builds_default_conversions_around_a_core_env() -> None:
    core_env = Cutting2DCoreEnvironment(max_pieces_in_inventory=7, raw_piece_size=(20, 10), static_demand=(5, 5))
    env = Cutting2DEnvironment(core_env)
    assert env.observation_space["inventory"].shape == (7, 2)
    assert env.action_space["piece_idx"].n == 7
    assert env.core_env.reward_aggregator is None
