"""SACfD checks its demonstrations for NaN/inf at load, naming the file and the step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.utils.finite import NonFiniteValueError
from maze.rollout.datasets import InMemoryDataset
from maze.rollout.datasets.trajectory_processor import IdentityWithNextObservationTrajectoryProcessor
from maze.train.trainers.sac.demonstrations import records_to_transitions
from test_sac import record_episodes


@pytest.fixture
def cartpole_demonstrations(tmp_path: Path) -> InMemoryDataset:
    """Two recorded CartPole episodes with their next observations."""
    data = record_episodes(tmp_path, "CartPole-v1")
    processor = IdentityWithNextObservationTrajectoryProcessor()
    return InMemoryDataset(data, lambda: GymMazeEnv("CartPole-v1"), trajectory_processor=processor)


def transitions(dataset: InMemoryDataset) -> None:
    env = GymMazeEnv("CartPole-v1")
    records_to_transitions(dataset, env.observation_spaces_dict[0], env.action_spaces_dict[0])


def test_finite_demonstrations_load(cartpole_demonstrations: InMemoryDataset) -> None:
    transitions(cartpole_demonstrations)


def test_a_nan_observation_names_the_file_the_step_and_the_value(cartpole_demonstrations: InMemoryDataset) -> None:
    record = cartpole_demonstrations.trajectories[1].step_records[5].substep_records[0]
    record.observation["observation"] = record.observation["observation"].copy()
    record.observation["observation"][2] = np.nan
    with pytest.raises(NonFiniteValueError) as raised:
        transitions(cartpole_demonstrations)
    assert str(raised.value) == (
        f"runner.initial_demonstration_trajectories: the file {str(cartpole_demonstrations.files[1])!r} at step 5 "
        "holds the non-finite observation['observation'][2] = nan; SACfD cannot learn from it. Fix or remove that "
        "episode"
    )


def test_an_infinite_reward_names_the_file_and_the_step(cartpole_demonstrations: InMemoryDataset) -> None:
    cartpole_demonstrations.trajectories[0].step_records[3].substep_records[0].reward = float("inf")
    with pytest.raises(NonFiniteValueError, match=r"the file '.*' at step 3 holds the non-finite reward = inf"):
        transitions(cartpole_demonstrations)
