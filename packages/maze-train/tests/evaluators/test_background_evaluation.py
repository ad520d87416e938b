"""runner.background_evaluation: evaluations in a forked child change when scores arrive, not what is learned."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from maze.env.errors import ConfigurationError, EnvWorkerError
from maze.env.log_stats.global_state import GlobalLogState, register_log_stats_writer
from maze.env.testing.fake_envs import build_dummy_maze_env
from maze.env.vector.subproc import SubprocVectorEnv
from maze.perception.serialization import load_state_dict_file
from maze.train.evaluators import RolloutEvaluator
from maze.train.evaluators.background import BackgroundEvaluation
from runner_test_support import A2C, job_config, same_state, set_up
from test_evaluator import dummy_env
from train_test_support import RecordingWriter, ZeroPolicy

EPOCHS = 3


def recorded_run(directory: Path, background: bool) -> tuple[dict[str, Any], RecordingWriter, Any]:
    """Trains A2C for EPOCHS epochs; returns the summary, every statistics write and the trainer."""
    runner = set_up(directory, job_config(n_epochs=EPOCHS), background_evaluation=background)
    writer = RecordingWriter()
    register_log_stats_writer(writer)
    try:
        result = runner.trainer.train()
    finally:
        GlobalLogState.writers.remove(writer)
        runner.graph_drawing.join()
        runner.close()
    return result, writer, runner.trainer


def test_background_evaluation_learns_and_selects_exactly_like_evaluating_in_the_loop(
    tmp_path: Path, single_thread
) -> None:
    in_loop, loop_writes, _ = recorded_run(tmp_path / "in_loop", background=False)
    background, background_writes, trainer = recorded_run(tmp_path / "background", background=True)

    assert isinstance(trainer.background_evaluation, BackgroundEvaluation)
    assert not trainer.background_evaluation.pending
    eval_rewards = loop_writes.values("eval", "BaseEnvEvents", "reward", "mean")
    assert len(eval_rewards) == EPOCHS and len(set(eval_rewards)) > 1
    assert background_writes.values("eval", "BaseEnvEvents", "reward", "mean") == eval_rewards
    # every evaluation is written at the log step of the epoch it evaluated
    assert background_writes.steps("eval") == background_writes.steps("train")
    assert loop_writes.steps("eval") == loop_writes.steps("train")
    assert background_writes.values("train", "BaseEnvEvents", "reward", "mean") == loop_writes.values(
        "train", "BaseEnvEvents", "reward", "mean"
    )
    assert (background.best_reward, background.epochs, background.env_steps) == (
        in_loop.best_reward,
        in_loop.epochs,
        in_loop.env_steps,
    )
    # the best model on disk is the evaluated epoch's, not the weights trained after it
    assert same_state(
        load_state_dict_file(tmp_path / "background" / "state_dict.pt"),
        load_state_dict_file(tmp_path / "in_loop" / "state_dict.pt"),
    )


def test_a_target_reached_in_the_background_stops_one_epoch_later(tmp_path: Path, single_thread) -> None:
    runner = set_up(tmp_path, job_config(n_epochs=10, target_reward=0.0), background_evaluation=True)
    try:
        result = runner.trainer.train()
    finally:
        runner.graph_drawing.join()
        runner.close()
    assert result.solved and "target reward 0 reached" in result.stop_reason
    assert result.epochs == 2  # epoch 0's score arrives after epoch 1 trained


def test_background_evaluation_refuses_evaluation_envs_in_worker_processes() -> None:
    env = SubprocVectorEnv([build_dummy_maze_env])
    try:
        with pytest.raises(ConfigurationError, match="background_evaluation=true needs evaluation envs"):
            BackgroundEvaluation(RolloutEvaluator(env, n_episodes=1))
    finally:
        env.close()


def test_runners_without_a_rollout_evaluator_refuse_background_evaluation(tmp_path: Path) -> None:
    cfg = job_config()
    cfg["algorithm"]["rollout_evaluator"] = None
    with pytest.raises(ConfigurationError, match="has no evaluator; set runner.background_evaluation=false"):
        set_up(tmp_path, cfg, A2C, background_evaluation=True)


def test_background_evaluation_refuses_more_than_one_torch_thread(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="runner.cpu_threads=2 lets torch's threads fight the evaluation"):
        set_up(tmp_path, job_config(), A2C, background_evaluation=True, cpu_threads=2)


class RaisingPolicy(ZeroPolicy):
    def compute_action(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("policy broke in the evaluation")


class KilledPolicy(ZeroPolicy):
    def compute_action(self, *args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.parametrize(
    ("policy_class", "message"),
    [
        (RaisingPolicy, r"(?s)the background evaluation raised:.*ValueError: policy broke in the evaluation"),
        (KilledPolicy, r"background evaluation process died \(exit code -9\)"),
    ],
)
def test_a_failing_background_evaluation_raises_in_the_trainer(vector_env, policy_class: type, message: str) -> None:
    env = vector_env(dummy_env, n_envs=1)
    background = BackgroundEvaluation(RolloutEvaluator(env, n_episodes=1))
    background.submit(policy_class(env.action_spaces_dict))
    with pytest.raises(EnvWorkerError, match=message):
        background.collect()
    assert not background.pending


def test_a_background_evaluation_reports_what_the_loop_would(vector_env) -> None:
    env = vector_env(dummy_env)
    evaluator = RolloutEvaluator(env, n_episodes=3, seeds=[1, 2])
    policy = ZeroPolicy(env.action_spaces_dict)
    in_loop = evaluator.evaluate(policy)
    stats = evaluator.last_stats
    background = BackgroundEvaluation(evaluator)

    background.submit(policy)
    assert background.pending
    assert background.collect() == in_loop
    assert background.collect() is None
    assert {key: np.asarray(value).tolist() for key, value in evaluator.last_stats.items()} == {
        key: np.asarray(value).tolist() for key, value in stats.items()
    }


def test_an_interrupted_run_keeps_the_background_evaluation_that_finished(
    tmp_path: Path, single_thread, monkeypatch
) -> None:
    runner = set_up(tmp_path, job_config(n_epochs=EPOCHS), background_evaluation=True)
    trainer, epochs = runner.trainer, []
    run_epoch = trainer._run_epoch

    def interrupt_the_second_epoch_once_the_first_is_evaluated() -> None:
        if epochs:
            pending = trainer.background_evaluation._pending
            assert pending.receiver.poll(timeout=60)  # epoch 0's evaluation has reported
            raise KeyboardInterrupt
        epochs.append(run_epoch())

    monkeypatch.setattr(trainer, "_run_epoch", interrupt_the_second_epoch_once_the_first_is_evaluated)
    try:
        with pytest.raises(KeyboardInterrupt):
            trainer.train()
    finally:
        runner.graph_drawing.join()
        runner.close()
    assert trainer.best_reward > float("-inf")  # epoch 0's score counts: its best model is on disk
    assert (tmp_path / "state_dict.pt").is_file()
