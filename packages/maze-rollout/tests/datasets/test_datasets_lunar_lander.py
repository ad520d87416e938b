"""Acceptance: recorded LunarLander heuristic episodes load into an InMemoryDataset, serially and in parallel."""

from __future__ import annotations

import functools
import re
import uuid

import numpy as np
import pytest
from maze.env.agent.lunar_lander_heuristic import LunarLanderHeuristicPolicy
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.trajectory_recording import StateTrajectoryRecord, TrajectoryLoadError, episode_id_of, load_trajectory
from maze.env.utils.seeding import MazeSeeding
from maze.rollout.datasets import InMemoryDataset

# a partial of an importable class reaches the loading workers whatever the pytest import mode
make_lunar_lander = functools.partial(GymMazeEnv, "LunarLander-v3")


def test_three_episodes_give_three_uuid_files_holding_every_step(lunar_lander_recording):
    files = sorted(lunar_lander_recording.directory.glob("*.traj.npz"))
    assert len(files) == 3
    for file in files:
        uuid.UUID(episode_id_of(file))
    lengths = sorted(len(load_trajectory(file, StateTrajectoryRecord)) for file in files)
    assert lengths == sorted(lunar_lander_recording.episode_steps)
    assert all(steps > 100 for steps in lengths)  # landings, not early crashes


def test_dataset_has_one_item_per_recorded_step_with_the_env_observation_keys(lunar_lander_recording):
    dataset = InMemoryDataset(str(lunar_lander_recording.directory), make_lunar_lander)
    env = make_lunar_lander()
    assert len(dataset) == sum(lunar_lander_recording.episode_steps)
    assert len(dataset.trajectories) == 3
    for item in dataset:
        assert set(item.observation) == set(env.observation_space.spaces)
        assert env.observation_space.contains(item.observation)
        assert env.action_space.contains(item.action)
        assert item.actor_id == (0, 0)
    assert sum(item.terminated for item in dataset) == 3  # each episode ends with a landing


def test_items_replay_the_recorded_episode(lunar_lander_recording):
    file = sorted(lunar_lander_recording.directory.glob("*.traj.npz"))[0]
    record = load_trajectory(file, StateTrajectoryRecord)
    dataset = InMemoryDataset([file], make_lunar_lander)
    assert len(dataset) == len(record)
    for item, step in zip(dataset, record.step_records, strict=True):
        # the MazeState of a gym env is its observation, the MazeAction its action
        np.testing.assert_array_equal(item.observation["observation"], step.maze_state)
        assert item.action["action"] == step.maze_action
        assert item.reward == step.reward


def test_two_workers_give_the_same_items_in_the_same_order(lunar_lander_recording):
    serial = InMemoryDataset(lunar_lander_recording.directory, make_lunar_lander, n_workers=1)
    parallel = InMemoryDataset(lunar_lander_recording.directory, make_lunar_lander, n_workers=2)
    assert parallel.files == serial.files
    assert [t.id for t in parallel.trajectories] == [t.id for t in serial.trajectories]
    assert len(parallel) == len(serial)
    for a, b in zip(parallel, serial, strict=True):
        np.testing.assert_array_equal(a.observation["observation"], b.observation["observation"])
        assert (a.action, a.actor_id, a.reward, a.terminated, a.truncated) == (
            b.action,
            b.actor_id,
            b.reward,
            b.terminated,
            b.truncated,
        )


@pytest.mark.parametrize("n_workers", [1, 2])
def test_a_truncated_file_is_named_in_the_error(lunar_lander_recording, tmp_path, n_workers):
    files = sorted(lunar_lander_recording.directory.glob("*.traj.npz"))
    for file in files:
        (tmp_path / file.name).write_bytes(file.read_bytes())
    broken = tmp_path / files[1].name
    broken.write_bytes(broken.read_bytes()[:500])
    with pytest.raises(TrajectoryLoadError, match=str(broken)):
        InMemoryDataset(tmp_path, make_lunar_lander, n_workers=n_workers)


def test_a_sequential_rollout_records_what_it_reports(box2d, tmp_path, monkeypatch, capsys):
    runner_module = pytest.importorskip("maze.rollout.sequential_rollout_runner")
    monkeypatch.chdir(tmp_path)
    runner = runner_module.SequentialRolloutRunner(n_episodes=3, max_episode_steps=1000, record_event_logs=False)
    runner.seeding = MazeSeeding(0, 0)  # fixed episodes: the heuristic crashes on a few start states
    mean_return = runner.run_with(env=make_lunar_lander(), wrappers=None, agent=LunarLanderHeuristicPolicy())
    reported = re.search(r"total_step_count\s*\|\s*([0-9.]+)", capsys.readouterr().out)
    assert reported is not None and mean_return > 100
    files = sorted((tmp_path / "trajectory_data").glob("*.traj.npz"))
    assert len(files) == 3
    total = int(float(reported.group(1)))
    assert sum(len(load_trajectory(file)) for file in files) == total
    dataset = InMemoryDataset(tmp_path / "trajectory_data", make_lunar_lander, n_workers=2)
    assert len(dataset) == total
    assert all(set(item.observation) == {"observation"} for item in dataset)
