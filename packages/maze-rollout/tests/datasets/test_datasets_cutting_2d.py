"""Recorded Cutting-2D MazeStates become per-sub-step observations of the structured env."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from maze.env.core.actor import ActorID
from maze.env.examples.cutting_2d import SIMPLE_PROBLEM_DEMAND, Cutting2DGreedyPolicy, struct_env_factory
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.wrappers.wrapper import ObservationWrapper
from maze.rollout.datasets import InMemoryDataset, TrajectoryConversionError

make_struct_env = functools.partial(struct_env_factory, 20, (4, 3), SIMPLE_PROBLEM_DEMAND)


class DoubledObservations(ObservationWrapper):
    """Doubles every observation array (a stand-in for a pre-processing wrapper)."""

    def observation(self, observation):
        return {key: value * 2 for key, value in observation.items()}


def test_each_recorded_step_becomes_a_selection_and_a_cutting_item(cutting_recording):
    dataset = InMemoryDataset(cutting_recording.directory, make_struct_env)
    env = make_struct_env()
    assert cutting_recording.episode_steps == [9, 9]  # truncated by the recording's time limit
    assert len(dataset) == 2 * sum(cutting_recording.episode_steps)
    assert [item.actor_id for item in dataset[:4]] == [ActorID(0, 0), ActorID(1, 0)] * 2
    for item in dataset:
        key = item.actor_id.step_key
        assert set(item.observation) == set(env.observation_spaces_dict[key].spaces)
        assert env.observation_spaces_dict[key].contains(item.observation)
        assert env.action_spaces_dict[key].contains(item.action)


def test_cutting_items_see_the_piece_the_selection_item_picked(cutting_recording):
    dataset = InMemoryDataset(cutting_recording.directory, make_struct_env)
    for selection, cutting in zip(dataset[0::2], dataset[1::2], strict=True):
        picked = selection.observation["inventory"][selection.action["piece_idx"]]
        np.testing.assert_array_equal(cutting.observation["selected_piece"], picked)
        np.testing.assert_array_equal(cutting.observation["ordered_piece"], selection.observation["ordered_piece"])


def test_the_structured_greedy_policy_agrees_with_the_recorded_flat_greedy_actions(cutting_recording):
    dataset = InMemoryDataset(cutting_recording.directory, make_struct_env)
    policy = Cutting2DGreedyPolicy()
    for item in dataset:
        assert policy.compute_action(item.observation, actor_id=item.actor_id) == {
            key: int(value) for key, value in item.action.items()
        }


def test_rewards_and_flags_belong_to_the_cutting_sub_step(cutting_recording):
    dataset = InMemoryDataset(cutting_recording.directory, make_struct_env)
    episode = dataset.trajectories[0]
    n_steps = cutting_recording.episode_steps[0]
    assert len(episode) == n_steps
    assert all(step.rewards[0] == 0.0 for step in episode.step_records)
    assert sum(step.rewards[1] for step in episode.step_records) < 0  # raw pieces cost -1 each
    assert [step.truncated for step in episode.step_records] == [False] * (n_steps - 1) + [True]
    assert not any(record.truncated for step in episode.step_records for record in step.substep_records[:1])


def test_observations_go_through_the_wrappers_of_the_conversion_env(cutting_recording):
    plain = InMemoryDataset(cutting_recording.directory, make_struct_env)
    wrapped = InMemoryDataset(cutting_recording.directory, lambda: DoubledObservations(make_struct_env()))
    for a, b in zip(plain, wrapped, strict=True):
        for key in a.observation:
            np.testing.assert_array_equal(b.observation[key], 2 * a.observation[key])
        assert a.action == b.action


def test_maze_states_without_a_conversion_env_are_rejected_naming_the_file(cutting_recording):
    with pytest.raises(TrajectoryConversionError, match=r"\.traj\.npz: .*conversion_env_factory"):
        InMemoryDataset(cutting_recording.directory)


def test_a_conversion_env_of_another_env_is_rejected_naming_the_file(cutting_recording):
    with pytest.raises(TrajectoryConversionError, match=r"\.traj\.npz: .*conversion env.s observation space expects"):
        InMemoryDataset(cutting_recording.directory, lambda: GymMazeEnv("CartPole-v1"))
