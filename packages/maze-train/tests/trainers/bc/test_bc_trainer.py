"""BCTrainer, ImitationData, BCValidationEvaluator and BCAlgorithmConfig on recorded data of structured fake envs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from checkpoint_test_support import checkpoint_file, training_state
from maze.env.core.actor import ActorID
from maze.env.errors import ConfigurationError
from maze.env.trajectory_recording.spaces_records import SpacesRecord
from maze.env.utils.termination import Terminated, clear_sigterm, record_sigterm
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.perception.serialization import load_state_dict_file
from maze.train.trainers import BestModelSelection
from maze.train.trainers.bc import (
    BCAlgorithmConfig,
    BCLoss,
    BCTrainer,
    BCValidationEvaluator,
    ImitationData,
    ImitationEvents,
)
from train_test_support import FAKE_ENVS, small_model_config


def teacher(step_key: int, observation: dict[str, np.ndarray]) -> dict[str, Any]:
    """A deterministic expert of the multi-step fake env: the largest item, then a position from the items."""
    items = observation["items"]
    if step_key == 0:
        return {"item": np.int64(np.argmax(items))}
    return {"position": np.tanh(items[:2]).astype(np.float32)}


def multi_step_records(n_steps: int, seed: int = 0) -> list[SpacesRecord]:
    """Recorded sub-steps of the teacher: sub-step 0 and 1 alternate, observations drawn at random."""
    rng = np.random.default_rng(seed)
    records = []
    for step in range(n_steps):
        for key in (0, 1):
            observation = {"items": rng.normal(size=4).astype(np.float32)}
            if key == 1:
                observation["step"] = np.array([step % 4], dtype=np.float32)
            records.append(SpacesRecord(ActorID(key, 0), observation, teacher(key, observation), reward=0.0))
    return records


def multi_step_policy(seed: int = 0):
    torch.manual_seed(seed)
    spaces_config = SpacesConfig.from_env(FAKE_ENVS["multi_step"]())
    composer = build_model_composer(
        small_model_config("flatten_concat", "multi_step", critic=False, hidden=32), spaces_config
    )
    return composer.torch_policy(), spaces_config


def test_imitation_data_groups_items_by_network_and_covers_them_once_per_pass() -> None:
    records = multi_step_records(25)
    policy, _ = multi_step_policy()
    data = ImitationData(records, policy.network_key)
    assert len(data) == 50 and data.sizes() == {0: 25, 1: 25}
    assert data.blocks[0].observations["items"].shape == (25, 4) and data.blocks[1].actions["position"].shape == (25, 2)
    seen = {0: [], 1: []}
    for batch in data.minibatches(8, np.random.default_rng(0)):
        assert sum(len(rows.actions[next(iter(rows.actions))]) for rows in batch.values()) <= 8
        for key, rows in batch.items():
            assert rows.actor_id == ActorID(key, 0)
            seen[key].extend(rows.observations["items"][:, 0].tolist())
    for key in (0, 1):
        expected = [record.observation["items"][0] for record in records if record.actor_id.step_key == key]
        assert sorted(seen[key]) == pytest.approx(sorted(expected))
    chunks = list(data.chunks(20))
    assert [sum(len(rows.observations["items"]) for rows in chunk.values()) for chunk in chunks] == [20, 20, 10]


def test_items_of_one_network_with_other_keys_are_rejected() -> None:
    records = multi_step_records(2)
    records[2] = SpacesRecord(ActorID(0, 0), {"other": np.zeros(4, np.float32)}, {"item": 0}, reward=0.0)
    policy, _ = multi_step_policy()
    with pytest.raises(ConfigurationError, match="recorded on different envs"):
        ImitationData(records, policy.network_key)


def train_multi_step(tmp_path: Path, recorder, **config: Any) -> tuple[BCTrainer, BestModelSelection]:
    policy, spaces_config = multi_step_policy()
    records = multi_step_records(400)
    loss = BCLoss(spaces_config.action_spaces_dict)
    train_data = ImitationData(records[:600], policy.network_key)
    validation = BCValidationEvaluator(ImitationData(records[600:], policy.network_key), loss)
    selection = BestModelSelection(tmp_path / "state_dict.pt", policy)
    settings = {"n_epochs": 8, "batch_size": 50, "eval_every_k_iterations": None, "n_eval_episodes": 0, **config}
    trainer = BCTrainer(BCAlgorithmConfig(**settings), train_data, policy, loss, validation, None, selection, seed=0)
    trainer.state_dir = tmp_path  # the runner sets it: the resumable state is written every epoch
    trainer.result = trainer.train()
    return trainer, selection


def test_bc_clones_a_multi_step_teacher_and_keeps_the_best_model(tmp_path: Path, recorder, single_thread) -> None:
    trainer, selection = train_multi_step(tmp_path, recorder)
    accuracy = recorder.values("eval", "ImitationEvents", "discrete_accuracy", groups=(0, "item"))
    error = recorder.values("eval", "ImitationEvents", "continuous_abs_error", groups=(1, "position"))
    assert len(accuracy) == 8 and accuracy[-1] > 0.9 and accuracy[-1] > accuracy[0]
    assert error[-1] < 0.15 < error[0]
    losses = np.add(
        recorder.values("eval", "ImitationEvents", "policy_loss", groups=(0,)),
        recorder.values("eval", "ImitationEvents", "policy_loss", groups=(1,)),
    )
    assert trainer.result.best_reward == selection.best_reward == pytest.approx(-losses.min())
    assert trainer.result.epochs == 8 and trainer.result.env_steps == 0 and trainer.samples_trained == 8 * 600
    train_events = {key.event for path, _, stats in recorder.rows if path == "train" for key in stats}
    assert {"policy_loss", "policy_entropy", "policy_grad_norm", "policy_l2_norm", "action_loss"} <= train_events
    state = training_state(tmp_path)
    assert state["best_reward"] == pytest.approx(selection.best_reward) and state["epochs"] == 8
    assert state["trainer"] == "BCTrainer" and checkpoint_file(tmp_path, "optimizer.pt").is_file()
    stored = load_state_dict_file(tmp_path / "state_dict.pt")
    assert set(stored) == {"policy_0", "policy_1"}


def test_a_sigterm_whose_exception_was_lost_ends_bc_before_the_next_epoch(
    tmp_path: Path, recorder, monkeypatch
) -> None:
    evaluate = BCTrainer.evaluate

    def lose_a_sigterm(trainer: BCTrainer, epoch: Any = None) -> float:
        record_sigterm()  # as maze-run's handler does where Python drops its exception
        return evaluate(trainer, epoch)

    monkeypatch.setattr(BCTrainer, "evaluate", lose_a_sigterm)
    try:
        with pytest.raises(Terminated):
            train_multi_step(tmp_path, recorder, n_epochs=3)
    finally:
        clear_sigterm()
    assert training_state(tmp_path)["epochs"] == 1  # the epoch it trained in is checkpointed


def test_evaluations_every_k_iterations_and_at_epoch_ends(tmp_path: Path, recorder, capsys) -> None:
    trainer, _ = train_multi_step(tmp_path, recorder, n_epochs=2, eval_every_k_iterations=10)
    # 600 items in 12 minibatches per epoch: after iterations 10, 12 (epoch end), 20, 24 (epoch end)
    assert trainer.iterations == 24 and len(recorder.steps("eval")) == 4 and recorder.steps("train") == [1, 2, 3, 4]
    headers = [line.strip("* ") for line in capsys.readouterr().out.splitlines() if line.startswith("**********")]
    assert headers == [  # each names the epoch it belongs to, mid-epoch and at its end alike
        "Epoch 0: evaluation after update 10",
        "Epoch 0: evaluation after update 12",
        "Epoch 1: evaluation after update 20",
        "Epoch 1: evaluation after update 24",
    ]


def test_max_seconds_stops_bc_at_the_first_epoch_end_past_it(tmp_path: Path, recorder) -> None:
    trainer, _ = train_multi_step(tmp_path, recorder, n_epochs=3, max_seconds=1e-6)
    assert trainer.result.epochs == 1 and trainer.result.stop_reason.startswith("wall-clock limit reached")
    assert len(recorder.steps("eval")) == 1 and trainer.result.train_seconds > 0


def test_a_torch_optimizer_from_its_target_trains_but_keeps_no_optimizer_state(tmp_path: Path, recorder) -> None:
    optimizer = {"_target_": "torch.optim.SGD", "lr": 0.01}
    trainer, _ = train_multi_step(tmp_path, recorder, n_epochs=2, optimizer=optimizer)
    assert isinstance(trainer.optimizer, torch.optim.SGD)
    state = training_state(tmp_path)
    optimizer_file = checkpoint_file(tmp_path, "optimizer.pt")
    saved = load_state_dict_file(optimizer_file) if optimizer_file.exists() else {}
    assert "optimizer" not in state["state_dicts"] and "optimizer" not in saved  # only the split seed, if any


def test_the_validation_score_is_the_negative_loss_of_all_items(recorder) -> None:
    policy, spaces_config = multi_step_policy()
    loss = BCLoss(spaces_config.action_spaces_dict)
    data = ImitationData(multi_step_records(30), policy.network_key)
    score = BCValidationEvaluator(data, loss).evaluate(policy)
    expected = 0.0
    with torch.no_grad():
        for key, rows in data.select(np.arange(len(data))).items():
            logits = policy.compute_logits_dict(rows.observations, rows.actor_id)
            expected += loss(key, logits, rows.actions).loss.item()
    assert score == pytest.approx(-expected, rel=1e-5)
    assert recorder.values("eval", "ImitationEvents", "policy_loss", groups=(0,))


@pytest.mark.parametrize(
    "config, message",
    [
        ({"optimizer": {"lr": 0.1}}, "algorithm.optimizer=.* needs a _target_"),
        ({"optimizer": {"_target_": "torch.optim.Adamm"}}, "algorithm.optimizer._target_: unknown _target_"),
        (
            {"validation_percentage": 100},
            r"algorithm.validation_percentage=100 is out of range; it must be >= 0 and < 100",
        ),
        ({"batch_size": 0}, "algorithm.batch_size=0 is out of range"),
        ({"n_epochs": 0}, "algorithm.n_epochs=0 is out of range"),
        ({"eval_every_k_iterations": 0}, "algorithm.eval_every_k_iterations=0 is out of range"),
        ({"entropy_coeff": 0.1}, "did you mean 'entropy_coef'"),
        ({"max_env_steps": 100}, "BC learns from recorded data and collects no env steps; limit it with"),
        ({"max_seconds": 0}, "algorithm.max_seconds=0 is out of range; it must be > 0"),
    ],
)
def test_bad_algorithm_keys_are_named(config: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        BCAlgorithmConfig.from_config(config)


def test_the_documented_defaults() -> None:
    config = BCAlgorithmConfig.from_config({})
    assert (config.n_epochs, config.batch_size, config.eval_every_k_iterations) == (1000, 100, 500)
    assert (config.validation_percentage, config.n_eval_episodes, config.entropy_coef) == (20, 8, 0.0)
    assert config.optimizer == {"_target_": "maze.train.optim.Adam", "lr": 0.001}
    assert BCTrainer.config_class is BCAlgorithmConfig and not BCTrainer.needs_critic
    assert ImitationEvents.discrete_accuracy
