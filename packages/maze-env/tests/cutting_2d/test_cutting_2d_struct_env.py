"""The structured and masked Cutting-2D envs: actors, spaces, rewards, masks, policies, conformance."""

from __future__ import annotations

import numpy as np
import pytest
from maze.env import DefaultPolicy, RandomPolicy, TimeLimitWrapper
from maze.env.examples.cutting_2d import (
    SIMPLE_PROBLEM_EPISODE_STEPS,
    Cutting2DCoreEnvironment,
    Cutting2DEnvironment,
    Cutting2DGreedyPolicy,
    Cutting2DMazeAction,
    Cutting2DPieceSelection,
    CuttingEvents,
    FlatCutting2DGreedyPolicy,
    RandomValidCutting2DPolicy,
    StructuredCutting2DCoreEnvironment,
    cutting_mask,
    inventory_mask,
    masked_struct_env_factory,
    maze_env_factory,
    run_episode,
    struct_env_factory,
)
from maze.env.testing.env_checker import check_env

FACTORIES = [struct_env_factory, masked_struct_env_factory]
SEEDS = range(4)


@pytest.mark.parametrize("factory", FACTORIES)
def test_actors_alternate_and_spaces_follow_them(factory) -> None:
    env = factory()
    assert env.agent_counts_dict == {0: 1, 1: 1}
    observation, _ = env.reset(seed=0)
    actors = [env.actor_id()]
    for step in range(6):
        assert (
            observation in env.observation_spaces_dict[step % 2]
            and env.observation_space == env.observation_spaces_dict[step % 2]
        )
        action = {"piece_idx": 0} if step % 2 == 0 else {"cut_rotation": 0, "cut_order": 0}
        observation, *_ = env.step(action)
        actors.append(env.actor_id())
    assert actors == [(0, 0), (1, 0)] * 3 + [(0, 0)]
    assert set(env.action_spaces_dict[0].spaces) == {"piece_idx"}
    assert set(env.action_spaces_dict[1].spaces) == {"cut_rotation", "cut_order"}
    assert {"selected_piece", "ordered_piece"} <= set(env.observation_spaces_dict[1].spaces)


def test_simple_problem_defaults() -> None:
    env = struct_env_factory()
    assert env.core_env.max_pieces_in_inventory == 50 and env.core_env.raw_piece_size == (4, 3)
    assert env.core_env.demand == [(1, 2), (1, 2), (1, 1), (2, 2), (1, 2), (1, 1)]
    assert sum(w * h for w, h in env.core_env.demand) == 12 and SIMPLE_PROBLEM_EPISODE_STEPS == 180


def test_selection_is_free_and_the_cut_reward_is_split_among_the_actors() -> None:
    env = struct_env_factory(max_pieces_in_inventory=200, raw_piece_size=(100, 100), static_demand=[(30, 15)])
    observation, _ = env.reset(seed=0)
    assert env.get_actor_rewards() is None
    observation, reward, terminated, truncated, info = env.step({"piece_idx": 0})
    assert (reward, terminated, truncated, info) == (0.0, False, False, {})
    np.testing.assert_array_equal(observation["selected_piece"], [100, 100])
    assert env.get_env_time() == 0 and list(env.get_step_events()) == []
    _, reward, _, _, info = env.step({"cut_rotation": 0, "cut_order": 0})
    assert reward == -1.0 and info == {"msg": "valid_cut"}
    np.testing.assert_array_equal(env.get_actor_rewards(), [-0.5, -0.5])
    assert env.get_env_time() == 1
    env.step({"piece_idx": 3})  # an empty slot: the cutting sub-step sees a zero-size piece
    _, reward, *_ = env.step({"cut_rotation": 1, "cut_order": 1})
    assert reward == -2.0
    np.testing.assert_array_equal(env.get_actor_rewards(), [-1.0, -1.0])


def test_time_limit_counts_env_steps_not_sub_steps() -> None:
    env = TimeLimitWrapper(struct_env_factory(), max_episode_steps=5)
    env.reset(seed=0)
    sub_steps, done = 0, False
    while not done:
        action = {"piece_idx": 0} if env.actor_id().step_key == 0 else {"cut_rotation": 0, "cut_order": 0}
        *_, terminated, truncated, _ = env.step(action)
        sub_steps += 1
        done = terminated or truncated
        assert not terminated
    assert sub_steps == 10 and env.actor_id() == (0, 0)


def test_core_env_rejects_actions_of_the_wrong_sub_step() -> None:
    core_env = StructuredCutting2DCoreEnvironment(10, (10, 10), (2, 2))
    core_env.reset()
    with pytest.raises(TypeError, match="Cutting2DPieceSelection"):
        core_env.step(Cutting2DMazeAction(0, False, False))
    core_env.step(Cutting2DPieceSelection(0))
    assert core_env.get_maze_state().selected_piece_id == 0
    with pytest.raises(ValueError, match="selected piece 0"):
        core_env.step(Cutting2DMazeAction(1, False, False))


@pytest.mark.parametrize("factory", FACTORIES)
def test_recorded_flat_data_splits_into_both_sub_steps(factory) -> None:
    env = factory()
    observation, _ = env.reset(seed=0)
    maze_state = env.get_maze_state()
    env.step({"piece_idx": 0})
    cutting_observation, *_ = env.step({"cut_rotation": 1, "cut_order": 0})
    recorded_action = env.get_maze_action()
    assert recorded_action == Cutting2DMazeAction(0, True, False)
    observations, actions = env.get_observation_and_action_dicts(maze_state, recorded_action, True)
    assert actions == {0: {"piece_idx": 0}, 1: {"cut_rotation": 1, "cut_order": 0}}
    for key, value in observation.items():
        np.testing.assert_array_equal(observations[0][key], value)
    assert observations[1] in env.observation_spaces_dict[1]
    np.testing.assert_array_equal(observations[1]["selected_piece"], [4, 3])
    assert env.get_observation_and_action_dicts(maze_state, None, True)[1] is None


@pytest.mark.parametrize("factory", FACTORIES)
def test_recorded_sub_steps_convert_one_by_one(factory) -> None:
    env = factory()
    selection_observation, _ = env.reset(seed=0)
    selection_state = env.get_maze_state()
    cutting_observation, *_ = env.step({"piece_idx": 0})
    cutting_state = env.get_maze_state()
    env.step({"cut_rotation": 1, "cut_order": 1})
    observations, actions = env.get_observation_and_action_dicts(selection_state, Cutting2DPieceSelection(0), True)
    assert list(observations) == [0] and actions == {0: {"piece_idx": 0}}
    for key, value in selection_observation.items():
        np.testing.assert_array_equal(observations[0][key], value)
    observations, actions = env.get_observation_and_action_dicts(cutting_state, env.get_maze_action(), False)
    assert list(observations) == [1] and actions == {1: {"cut_rotation": 1, "cut_order": 1}}
    for key, value in cutting_observation.items():
        np.testing.assert_array_equal(observations[1][key], value)
    assert list(env.get_observation_and_action_dicts(cutting_state, None, False)[0]) == [1]


def test_masks_of_the_documented_example() -> None:
    inventory = np.zeros((200, 2), dtype=np.float32)
    inventory[0] = (100, 100)
    mask = inventory_mask(inventory, 1, np.array([30, 15]))
    assert mask[0] == 1 and not mask[1:].any() and mask.dtype == np.float32
    np.testing.assert_array_equal(cutting_mask(np.array([20, 40]), np.array([30, 15])), [0, 1])
    np.testing.assert_array_equal(cutting_mask(np.array([0, 0]), np.array([30, 15])), [0, 0])


def test_masked_observations_mark_exactly_the_valid_actions() -> None:
    env = masked_struct_env_factory(max_pieces_in_inventory=10, raw_piece_size=(6, 5), static_demand=[(2, 3), (4, 1)])
    policy = RandomPolicy(env.action_spaces_dict, seed=1)
    observation, _ = env.reset(seed=1)
    for _ in range(200):
        actor = env.actor_id()
        action = policy.compute_action(observation, actor_id=actor)
        state = env.get_maze_state()
        if actor.step_key == 0:
            index = int(action["piece_idx"])
            expected_valid = observation["inventory_mask"][index] == 1
        else:
            expected_valid = observation["cutting_mask"][int(action["cut_rotation"])] == 1
        observation, _, _, _, info = env.step(action)
        if actor.step_key == 0:
            piece = state.piece(index)
            fits_somehow = piece is not None and all(np.sort(piece) >= np.sort(state.current_demand))
            assert expected_valid == fits_somehow
        else:
            assert expected_valid == (info.get("msg") == "valid_cut")


@pytest.mark.parametrize("factory", FACTORIES)
def test_greedy_uses_fewer_raw_pieces_than_random(factory) -> None:
    env = TimeLimitWrapper(factory(), max_episode_steps=SIMPLE_PROBLEM_EPISODE_STEPS)
    greedy = [run_episode(env, Cutting2DGreedyPolicy(), seed) for seed in SEEDS]
    random_valid = [run_episode(env, RandomValidCutting2DPolicy(), seed) for seed in SEEDS]
    random = [run_episode(env, RandomPolicy(env.action_spaces_dict), seed) for seed in SEEDS]
    assert all(summary.steps == 180 and summary.invalid_actions == 0 for summary in greedy + random_valid)
    assert all(summary.raw_pieces == 30 for summary in greedy)  # the optimum of the simple problem
    for ours, theirs in zip(greedy, random_valid, strict=True):
        assert ours.raw_piece_usage_per_step < theirs.raw_piece_usage_per_step
    assert max(s.reward for s in random) < min(s.reward for s in random_valid) < min(s.reward for s in greedy)


def test_flat_greedy_policy_solves_the_simple_problem_on_the_flat_env() -> None:
    env = TimeLimitWrapper(
        maze_env_factory(50, (4, 3), [(1, 2), (1, 2), (1, 1), (2, 2), (1, 2), (1, 1)]), max_episode_steps=180
    )
    summary = run_episode(env, DefaultPolicy({0: FlatCutting2DGreedyPolicy()}), seed=0)
    assert (summary.steps, summary.raw_pieces, summary.invalid_actions, summary.reward) == (180, 30, 0, -30.0)


def test_greedy_policy_recognises_the_sub_step_without_actor_id() -> None:
    env = struct_env_factory()
    observation, _ = env.reset(seed=0)
    policy = Cutting2DGreedyPolicy()
    assert policy.compute_action(observation) == {"piece_idx": 0}
    observation, *_ = env.step({"piece_idx": 0})
    assert set(policy.compute_action(observation)) == {"cut_rotation", "cut_order"}


def test_random_valid_policy_never_acts_invalidly() -> None:
    env = TimeLimitWrapper(struct_env_factory(), max_episode_steps=60)
    summary = run_episode(env, RandomValidCutting2DPolicy(seed=0), seed=0)
    assert summary.invalid_actions == 0 and summary.steps == 60


@pytest.mark.parametrize(
    "make_env",
    [
        lambda: Cutting2DEnvironment(Cutting2DCoreEnvironment(10, (100, 100), (30, 15))),
        lambda: maze_env_factory(10, (100, 100), [(30, 15), (50, 50)]),
        lambda: TimeLimitWrapper(maze_env_factory(10, (10, 10), (3, 4)), max_episode_steps=7),
        struct_env_factory,
        masked_struct_env_factory,
        lambda: TimeLimitWrapper(masked_struct_env_factory(), max_episode_steps=9),
    ],
    ids=["flat_built_in_reward", "flat", "flat_time_limit", "struct", "masked", "masked_time_limit"],
)
def test_every_variant_passes_the_env_checker(make_env) -> None:
    check_env(make_env(), n_steps=40)


def test_events_fire_only_in_the_cutting_sub_step() -> None:
    env = masked_struct_env_factory()
    env.reset(seed=0)
    env.step({"piece_idx": 0})
    assert list(env.get_step_events()) == []
    env.step({"cut_rotation": 0, "cut_order": 0})
    assert CuttingEvents.valid_cut in [event.interface_method for event in env.get_step_events()]
