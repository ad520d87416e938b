"""SAC with ``split_rollouts_into_transitions: false``: a ring buffer of whole rollouts, sampled rollout by rollout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.vector.sequential import SequentialVectorEnv
from maze.train.replay import (
    DummyDistributedWorkersWithBuffer,
    RolloutReplayBuffer,
    TransitionBatch,
    env_rollouts,
    rollout_to_transitions,
)
from maze.train.rollout.collector import RolloutBatch, RolloutCollector, SubStepBatch
from maze.train.trainers.sac.demonstrations import demonstration_rollouts
from maze.train.trainers.sac.runner import SACRunner
from sac_test_support import sac_config, set_up
from test_sac import demonstrations_config, record_episodes
from test_sac_structured import cue_config
from train_test_support import transitions

WHOLE = {"split_rollouts_into_transitions": False}


# --- the buffer -----------------------------------------------------------------------------


def test_rollout_buffer_overwrites_whole_rollouts_in_ring_order_up_to_its_capacity() -> None:
    buffer = RolloutReplayBuffer(buffer_size=10, rollout_length=3, seed=0)
    assert buffer.buffer_size == 9  # 3 whole rollouts fit into 10 transitions
    buffer.add_transitions(transitions(0, 6))
    assert (len(buffer), buffer.n_rollouts) == (6, 2)
    buffer.add_transitions(transitions(6, 6))  # rollouts 2 and 3; rollout 3 overwrites rollout 0
    assert (len(buffer), buffer.n_rollouts) == (9, 3)
    assert buffer.rollouts._storage["rewards"].tolist() == [[9, 10, 11], [3, 4, 5], [6, 7, 8]]
    assert buffer.rollouts._storage["observations"]["observation"].shape == (3, 3, 2)  # [rollouts, T, *shape]
    with pytest.raises(ValueError, match="5 transitions are no whole number of rollouts of 3 steps"):
        buffer.add_transitions(transitions(12, 5))
    with pytest.raises(ConfigurationError, match="set algorithm.replay_buffer_size to at least"):
        RolloutReplayBuffer(buffer_size=2, rollout_length=3)


def test_sampled_rollouts_stay_whole_and_in_order_and_sampling_is_seeded() -> None:
    def draws(seed: int) -> list[list[float]]:
        buffer = RolloutReplayBuffer(buffer_size=30, rollout_length=3, seed=seed)
        buffer.add_transitions(transitions(0, 30))
        batches = [buffer.sample_batch(4) for _ in range(3)]
        for batch in batches:
            assert len(batch) == 12 and batch.observations["observation"].shape == (12, 2)
            ids = batch.rewards.view(4, 3)  # every field of a transition carries its number
            assert torch.equal(ids[:, 1:], ids[:, :1] + torch.tensor([1.0, 2.0]))  # consecutive steps, in order
            assert bool((ids[:, 0] % 3 == 0).all())  # starting where a stored rollout starts
            assert torch.equal(batch.observations["observation"][:, 1], -batch.rewards)
            assert torch.equal(batch.actions["action"].float(), batch.rewards)
        return [batch.rewards.tolist() for batch in batches]

    assert draws(1) == draws(1)
    assert draws(1) != draws(2)


def test_env_rollouts_hand_over_each_envs_steps_whole() -> None:
    steps, envs = 3, 2
    observations = np.arange(steps * envs, dtype=np.float32).reshape(steps, envs, 1)  # env e at step t: 2t + e
    rollout = RolloutBatch(
        substeps=[SubStepBatch(("main", 0), {"observation": observations}, {"action": np.zeros((3, 2), np.int64)})],
        rewards=observations[..., 0].copy(),
        terminated=np.zeros((steps, envs), dtype=bool),
        truncated=np.zeros((steps, envs), dtype=bool),
        next_observation={"observation": np.array([[6.0], [7.0]], np.float32)},
    )
    (key, batch), *others = env_rollouts(rollout).items()
    assert key == "main" and not others
    assert batch.rewards.tolist() == [0, 2, 4, 1, 3, 5]  # env 0's steps, then env 1's
    assert batch.next_observations["observation"][:, 0].tolist() == [2, 4, 6, 3, 5, 7]
    by_time = rollout_to_transitions(rollout)
    assert sorted(by_time.rewards.tolist()) == sorted(batch.rewards.tolist())
    structured = RolloutBatch(
        substeps=[rollout.substeps[0]] * 2,
        rewards=np.zeros((2 * steps, envs), np.float32),
        terminated=np.zeros((2 * steps, envs), dtype=bool),
        truncated=np.zeros((2 * steps, envs), dtype=bool),
    )
    with pytest.raises(ConfigurationError, match="2 actors per env step. Set algorithm.split_rollouts_into_"):
        env_rollouts(structured)


# --- training -------------------------------------------------------------------------------


def assert_stored_rollouts_are_consecutive_steps(buffer: RolloutReplayBuffer) -> None:
    """Within every stored rollout, a step's next observation is the following step's observation (no episode ended)."""
    storage = buffer.rollouts._storage
    observations = storage["observations"]["observation"][: buffer.n_rollouts]  # [R, T, 4]
    following = storage["next_observations"]["observation"][: buffer.n_rollouts, :-1]
    continuing = storage["dones"][: buffer.n_rollouts, :-1] == 0  # CartPole ends by termination here
    assert continuing.sum() > 0.8 * continuing.size
    np.testing.assert_array_equal(following[continuing], observations[:, 1:][continuing])


def recorded_updates(runner: SACRunner) -> tuple[list[int], list[torch.Tensor]]:
    """Wraps the trainer's update: the batch sizes it sees and its statistics (losses, ...), filled by ``run``."""
    sizes: list[int] = []
    stats: list[torch.Tensor] = []
    update = runner.trainer.update

    def recording_update(batches: dict[Any, TransitionBatch]) -> None:
        sizes.extend(len(batch) for batch in batches.values())
        update(batches)
        stats.append(runner.trainer._update_stats[-1].clone())

    runner.trainer.update = recording_update
    return sizes, stats


def test_sac_dev_trains_on_whole_rollouts_deterministically_and_resumes(tmp_path: Path, single_thread: None) -> None:
    config = sac_config(**WHOLE, n_rollout_steps=4, num_actors=2, batch_size=5, n_epochs=1, replay_buffer_size=70)

    def run(directory: Path) -> tuple[SACRunner, list[int], list[torch.Tensor]]:
        runner = set_up(directory, config)
        buffer = runner.trainer.workers.replay_buffer
        assert isinstance(buffer, RolloutReplayBuffer) and buffer.buffer_size == 68
        assert (len(buffer), buffer.n_rollouts) == (32, 8)  # initial_buffer_size 32: 4 rollouts of both envs
        sizes, stats = recorded_updates(runner)
        runner.run()
        return runner, sizes, stats

    runner, sizes, stats = run(tmp_path / "a")
    assert sizes == [5 * 4] * 10  # batch_size rollouts of n_rollout_steps transitions per update
    buffer = runner.trainer.workers.replay_buffer
    assert (len(buffer), buffer.n_rollouts) == (68, 17)  # 32 + 10 * 8 transitions: wrapped at 17 rollouts
    assert runner.trainer.workers.stored_transitions() == 68  # the buffer_size statistic
    assert_stored_rollouts_are_consecutive_steps(buffer)
    _, _, again = run(tmp_path / "b")
    assert len(again) == 10 and all(torch.equal(a, b) for a, b in zip(stats, again, strict=True))

    resumed_config = {**config, "input_dir": str(tmp_path / "a"), "algorithm": {**config["algorithm"], "n_epochs": 2}}
    resumed = set_up(tmp_path / "c", resumed_config)
    assert resumed.trainer.updates == 10 and isinstance(resumed.trainer.workers.replay_buffer, RolloutReplayBuffer)
    sizes, _ = recorded_updates(resumed)
    resumed.run()
    assert sizes == [20] * 10 and resumed.trainer.updates == 20


def test_sac_local_workers_store_their_rollouts_whole(tmp_path: Path) -> None:
    config = sac_config(**WHOLE, n_rollout_steps=3, num_actors=2, batch_size=4, n_epochs=1, epoch_length=5)
    runner = set_up(tmp_path, config, backend="local", start_method="fork")
    sizes, _ = recorded_updates(runner)
    runner.run()
    buffer = runner.trainer.workers.replay_buffer
    assert sizes == [4 * 3] * 5
    assert (len(buffer), buffer.n_rollouts) == (36 + 5 * 6, 22)  # 6 initial rollouts of both in-process envs
    assert runner.trainer.workers.stored_transitions() == len(buffer) == runner.trainer.env_steps
    assert_stored_rollouts_are_consecutive_steps(buffer)


def test_demonstrations_are_cut_to_whole_rollouts() -> None:
    assert demonstration_rollouts(transitions(0, 10), 4).rewards.tolist() == list(range(8))
    with pytest.raises(ConfigurationError, match="the 3 demonstration transitions make no rollout of algorithm.n_"):
        demonstration_rollouts(transitions(0, 3), 4)


def test_sacfd_demonstrations_become_rollouts_of_consecutive_transitions(tmp_path: Path) -> None:
    data = record_episodes(tmp_path, "CartPole-v1")
    config = sac_config(**WHOLE, n_rollout_steps=4, n_epochs=1, epoch_length=2)
    runner = set_up(tmp_path / "run", config, initial_demonstration_trajectories=demonstrations_config(data))
    buffer = runner.trainer.workers.replay_buffer
    reference = set_up(
        tmp_path / "reference", sac_config(), initial_demonstration_trajectories=demonstrations_config(data)
    )
    demonstrations = reference.trainer.workers.replay_buffer
    whole = len(demonstrations) - len(demonstrations) % 4
    assert len(buffer) == buffer.n_rollouts * 4 == whole  # the remainder of fewer than 4 transitions is left out
    stored = buffer.rollouts._storage["observations"]["observation"][: buffer.n_rollouts]
    np.testing.assert_array_equal(
        stored.reshape(whole, 4), demonstrations._storage["observations"]["observation"][:whole]
    )
    reference.trainer.close()
    reference.close()
    runner.run()
    assert len(buffer) == whole + 2 * 4


def test_the_initial_fill_stops_at_the_capacity_and_bad_combinations_are_refused(tmp_path: Path) -> None:
    runner = set_up(tmp_path / "full", sac_config(**WHOLE, n_rollout_steps=4, replay_buffer_size=30))
    assert len(runner.trainer.workers.replay_buffer) == 28  # initial_buffer_size 32 > the 7 rollouts it holds
    runner.trainer.close()
    runner.close()
    buffers = {"main": RolloutReplayBuffer(buffer_size=12, rollout_length=3)}
    collector = RolloutCollector(SequentialVectorEnv([lambda: GymMazeEnv("CartPole-v1")]), 4, [0])
    with pytest.raises(ValueError, match=r"store rollouts of \{3\} steps; the workers collect 4"):
        DummyDistributedWorkersWithBuffer(collector, None, buffers)
    collector.env.close()
    with pytest.raises(
        ConfigurationError,
        match=r"whole rollouts of flat envs; this env has the sub-steps \['choose', 'place'\]. Set algorithm.split_",
    ):
        set_up(tmp_path / "structured", cue_config(**WHOLE))
    with pytest.raises(ConfigurationError, match="replay buffer of 3 transitions cannot hold one rollout of 4 steps"):
        set_up(tmp_path / "small", sac_config(**WHOLE, n_rollout_steps=4, replay_buffer_size=3))
