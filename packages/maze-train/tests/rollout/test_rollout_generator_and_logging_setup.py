"""RolloutGenerator records batched spaces trajectories; setup_logging registers console and TensorBoard writers."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
from maze.env.log_stats.global_state import GlobalLogState, clear_global_state, get_stats_logger, increment_log_step
from maze.env.log_stats.log_stats import LogStatsKey
from maze.env.log_stats.writers import LogStatsWriterConsole
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.train.logging_setup import setup_logging
from maze.train.rollout import RolloutGenerator
from maze.train.tensorboard import LogStatsWriterTensorboard, read_scalars, read_texts
from maze.train.trainers.a2c import A2CAlgorithmConfig
from train_test_support import FAKE_ENVS, ZeroPolicy, small_model_config


def cartpole() -> GymMazeEnv:
    return GymMazeEnv("CartPole-v1", max_episode_steps=5)


def test_rollout_of_a_vector_env_has_one_batched_record_per_env_step(vector_env) -> None:
    env = vector_env(cartpole)
    generator = RolloutGenerator(env, seeds=[0, 1])

    trajectory = generator.rollout(ZeroPolicy(env.action_spaces_dict), n_steps=100)

    assert len(trajectory) == 100 and generator.env_steps == 200
    [record] = trajectory.step_records[0].substep_records
    assert record.actor_id == ActorID(0, 0)
    assert record.observation["observation"].shape == (2, 4) and record.action["action"].shape == (2,)
    assert record.reward.shape == (2,) and record.logits is None
    truncated = np.array([step.substep_records[0].truncated for step in trajectory])
    assert truncated.sum() == 2 * 20  # every 5th step ends each env's episode
    second = generator.rollout(ZeroPolicy(env.action_spaces_dict), n_steps=3)  # continues the envs
    assert len(second) == 3 and generator.env_steps == 206


def test_rollout_of_a_multi_step_env_records_every_sub_step(vector_env) -> None:
    env = vector_env(FAKE_ENVS["multi_step"])
    trajectory = RolloutGenerator(env).rollout(ZeroPolicy(env.action_spaces_dict), n_steps=4)
    step = trajectory.step_records[0]
    assert [actor_id.step_key for actor_id in step.actor_ids] == [0, 1]
    assert set(step.observations[1]) == {"items", "step"}


def test_a_single_env_gets_a_batch_of_one_and_torch_policies_record_logits() -> None:
    policy = build_model_composer(
        small_model_config("template", "cartpole", critic=False), SpacesConfig.from_env(cartpole())
    ).torch_policy()
    generator = RolloutGenerator(cartpole(), record_logits=True, seeds=[3])

    trajectory = generator.rollout(policy, n_steps=6)

    record = trajectory.step_records[-1].substep_records[0]
    assert record.observation["observation"].shape == (1, 4)
    assert record.logits["action"].shape == (1, 2) and np.isfinite(record.logits["action"]).all()
    generator.close()


def test_rollout_rejects_bad_requests(vector_env) -> None:
    env = vector_env(cartpole)
    with pytest.raises(ConfigurationError, match="n_steps"):
        RolloutGenerator(env).rollout(ZeroPolicy(env.action_spaces_dict), n_steps=0)
    with pytest.raises(ConfigurationError, match="compute_logits_dict"):
        RolloutGenerator(env, record_logits=True).rollout(ZeroPolicy(env.action_spaces_dict), n_steps=2)


def test_setup_logging_writes_console_tables_and_tensorboard_under_the_script_name(
    tmp_path, monkeypatch, capsys
) -> None:
    monkeypatch.setattr(sys, "argv", ["/somewhere/my_training.py", "--fast"])
    tensorboard_dir = setup_logging(job_config=A2CAlgorithmConfig(n_epochs=3), log_dir=tmp_path)
    second_dir = setup_logging(job_config={"lr": 0.1}, log_dir=tmp_path)  # no second console writer

    increment_log_step()
    get_stats_logger("train").log_stats({LogStatsKey("BaseEnvEvents", "reward", "mean"): 12.5})

    assert tensorboard_dir.parent == tmp_path / "tensorboard" and tensorboard_dir.name.startswith("my_training_")
    writers = [type(writer) for writer in GlobalLogState.writers]
    assert writers.count(LogStatsWriterConsole) == 1 and writers.count(LogStatsWriterTensorboard) == 2
    assert "train     BaseEnvEvents" in capsys.readouterr().out
    clear_global_state()  # closes the writers
    assert read_scalars(tensorboard_dir)["train_BaseEnvEvents/reward/mean"] == [(1, 12.5)]
    texts = read_texts(tensorboard_dir)
    assert "n_epochs: 3" in texts["config"] and "--fast" in texts["command"]
    assert second_dir != tensorboard_dir and read_texts(second_dir)["config"].count("lr: 0.1") == 1


def test_setup_logging_without_a_job_config_logs_the_command_only(tmp_path) -> None:
    tensorboard_dir = setup_logging(log_dir=tmp_path)
    clear_global_state()
    assert set(read_texts(tensorboard_dir)) == {"command"}
