"""A2C and PPO: training on structured fake envs, statistics, determinism, burn-in, stopping, losses, configs."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Optional

import numpy as np
import pytest
import torch
from maze.env.errors import ConfigurationError
from maze.perception.models.base_model_composer import build_model_composer
from maze.perception.models.spaces_config import SpacesConfig
from maze.perception.serialization import load_state_dict_file
from maze.train.core.actor_critic import prepare_actor_critic_batch
from maze.train.evaluators import RolloutEvaluator
from maze.train.returns import compute_returns
from maze.train.rollout import RolloutCollector
from maze.train.trainers import A2C, PPO, A2CAlgorithmConfig, BestModelSelection, PPOAlgorithmConfig
from maze.train.trainers.ppo import clipped_surrogate_loss
from train_test_support import FAKE_ENVS, small_model_config

TRAINERS = [A2C, PPO]
MODEL_KINDS = ["flatten_concat", "template"]
SMALL_BUDGET = {"n_epochs": 2, "epoch_length": 2, "n_rollout_steps": 8, "patience": 0, "lr": 1e-3}
"""Two epochs of two updates on rollouts of 8 env steps in each of 2 envs (64 env steps)."""
PPO_BUDGET = {"batch_size": 8, "n_optimization_epochs": 2}
MAX_STEPS = 4
"""Episode length of the fake envs: episodes end within every epoch."""


@pytest.fixture
def build_trainer(vector_env) -> Callable[..., Any]:
    """Builds a seeded A2C/PPO trainer on a fake env with a small model and (optionally) an evaluator of 2 episodes."""

    def build(
        trainer_class: type,
        env_name: str = "dummy",
        model_kind: str = "flatten_concat",
        seed: int = 0,
        evaluator: bool = True,
        model_selection: Optional[BestModelSelection] = None,
        **overrides: Any,
    ) -> Any:
        torch.manual_seed(seed)

        def factory() -> Any:
            return FAKE_ENVS[env_name](max_steps=MAX_STEPS)

        extra = PPO_BUDGET if trainer_class is PPO else {}
        config = trainer_class.config_class(**{**SMALL_BUDGET, **extra, **overrides})
        composer = build_model_composer(small_model_config(model_kind, env_name), SpacesConfig.from_env(factory()))
        model = composer.torch_actor_critic()
        if model_selection is not None:
            model_selection.model = model
        rollout_evaluator = (
            RolloutEvaluator(vector_env(factory), n_episodes=2, seeds=[7, 8], model_selection=model_selection)
            if evaluator
            else None
        )
        collector = RolloutCollector(vector_env(factory), config.n_rollout_steps, seeds=[seed, seed + 1])
        return trainer_class(config, collector, rollout_evaluator, model, model_selection)

    return build


def snapshot(parameters: list[torch.nn.Parameter]) -> list[torch.Tensor]:
    return [parameter.detach().clone() for parameter in parameters]


def unchanged(before: list[torch.Tensor], parameters: list[torch.nn.Parameter]) -> bool:
    return all(torch.equal(old, new) for old, new in zip(before, parameters, strict=True))


def slot_losses(recorder) -> list[float]:
    """Every recorded policy and value loss of every slot, epoch by epoch."""
    return [
        value
        for slot in range(2)
        for event in ("policy_loss", "critic_value_loss")
        for value in recorder.values("train", "ActorCriticEvents", event, groups=(slot,))
    ]


@pytest.mark.parametrize("model_kind", MODEL_KINDS)
@pytest.mark.parametrize("trainer_class", TRAINERS, ids=lambda cls: cls.__name__)
def test_trains_on_every_fake_env_and_writes_train_and_eval_stats(
    build_trainer, recorder, fake_env_name: str, model_kind: str, trainer_class: type
) -> None:
    trainer = build_trainer(trainer_class, fake_env_name, model_kind)
    before = snapshot(trainer.model.parameters())

    result = trainer.train()

    assert (result.epochs, result.env_steps, result.solved) == (2, 64, False)
    assert result.stop_reason == "2 epochs done"
    assert not unchanged(before, trainer.model.parameters())
    assert recorder.steps("train") == recorder.steps("eval") == [1, 2]
    n_slots = 1 if fake_env_name == "dummy" else 2
    for slot in range(n_slots):
        for event in ("policy_loss", "policy_entropy", "critic_value", "critic_value_loss"):
            values = recorder.values("train", "ActorCriticEvents", event, groups=(slot,))
            assert len(values) == 2 and all(math.isfinite(value) for value in values), (event, slot)
    assert recorder.values("train", "ActorCriticEvents", "policy_loss", groups=(n_slots,)) == []
    assert recorder.values("train", "ActorCriticEvents", "learning_rate") == [pytest.approx(1e-3)] * 2
    assert len(recorder.values("train", "ActorCriticEvents", "policy_grad_norm")) == 2
    assert len(recorder.values("train", "BaseEnvEvents", "reward", "mean")) == 2
    assert recorder.values("eval", "BaseEnvEvents", "reward", "episode_count") == [2, 2]
    eval_means = recorder.values("eval", "BaseEnvEvents", "reward", "mean")
    assert result.best_reward == pytest.approx(max(eval_means))


@pytest.mark.parametrize("trainer_class", TRAINERS, ids=lambda cls: cls.__name__)
def test_same_seed_same_losses_other_seed_other_losses(
    build_trainer, recorder, single_thread, trainer_class: type
) -> None:
    def losses(seed: int) -> list[float]:
        build_trainer(trainer_class, "multi_step", seed=seed).train()
        values = slot_losses(recorder)
        recorder.rows.clear()
        return values

    first = losses(0)

    assert len(first) == 8  # two slots, two losses, two epochs
    assert losses(0) == first
    assert losses(1) != first


@pytest.mark.parametrize("model_kind", MODEL_KINDS)
@pytest.mark.parametrize("trainer_class", TRAINERS, ids=lambda cls: cls.__name__)
def test_critic_burn_in_keeps_the_policy_and_trains_the_critic(
    build_trainer, recorder, model_kind: str, trainer_class: type
) -> None:
    trainer = build_trainer(trainer_class, model_kind=model_kind, critic_burn_in_epochs=1)
    policy, critic = trainer.model.policy.parameters(), trainer.model.critic.parameters()
    policy_before, critic_before = snapshot(policy), snapshot(critic)

    trainer.train(n_epochs=1)

    assert unchanged(policy_before, policy)
    assert not unchanged(critic_before, critic)
    trainer.train(n_epochs=2)  # n_epochs counts the total: one more epoch, burn-in is over
    assert not unchanged(policy_before, policy)
    burn_in_norm, trained_norm = recorder.values("train", "ActorCriticEvents", "policy_grad_norm")
    assert burn_in_norm == 0.0 < trained_norm


@pytest.mark.parametrize("patience", [1, 2])
def test_patience_stops_after_epochs_without_improvement(build_trainer, recorder, patience: int) -> None:
    trainer = build_trainer(PPO, lr=0.0, n_epochs=0, patience=patience)

    result = trainer.train()

    assert result.epochs == patience + 1
    assert "patience" in result.stop_reason and not result.solved
    eval_means = recorder.values("eval", "BaseEnvEvents", "reward", "mean")
    assert len(set(eval_means)) == 1  # lr 0: the same deterministic evaluation every epoch


@pytest.mark.parametrize(("target_reward", "solved", "epochs"), [(-1e9, True, 1), (1e9, False, 2)])
def test_target_reward_stops_training_as_solved(build_trainer, target_reward, solved, epochs) -> None:
    result = build_trainer(A2C, target_reward=target_reward).train()

    assert (result.solved, result.epochs) == (solved, epochs)
    assert ("target reward" in result.stop_reason) == solved


def test_without_evaluator_model_selection_takes_the_training_return(build_trainer, recorder, tmp_path: Path) -> None:
    selection = BestModelSelection(tmp_path / "best.pt", model=None)
    trainer = build_trainer(A2C, evaluator=False, model_selection=selection)

    result = trainer.train()

    train_means = recorder.values("train", "BaseEnvEvents", "reward", "mean")
    assert recorder.steps("eval") == []
    assert result.best_reward == pytest.approx(max(train_means)) == pytest.approx(selection.best_reward)
    assert set(load_state_dict_file(tmp_path / "best.pt")) == set(trainer.model.state_dict())


def test_prepared_batch_rows_line_up_per_slot_and_discount_per_env_step(build_trainer) -> None:
    trainer = build_trainer(A2C, "multi_step")
    rollout = trainer.collector.collect(trainer.model.policy)

    batch = prepare_actor_critic_batch(rollout, trainer.model, gamma=0.5, gae_lambda=1.0)

    rows = rollout.n_steps * rollout.n_envs
    assert batch.n_rows == rows == 16
    assert [tensor.shape for tensor in batch.old_log_probs] == [(rows,)] * 2
    assert batch.observations[1]["step"].shape == (rows, 1)
    # Sub-step 0 earns nothing and is not discounted: with lambda 1 both slots of an env step share the target.
    torch.testing.assert_close(batch.value_targets[0], batch.value_targets[1])
    for advantages, targets, values in zip(batch.advantages, batch.value_targets, batch.old_values, strict=True):
        assert values.abs().min() > 0
        torch.testing.assert_close(advantages, targets - values)

    for parameter in trainer.model.critic.parameters():
        torch.nn.init.zeros_(parameter)  # all values 0: the targets are the plain discounted returns
    batch = prepare_actor_critic_batch(rollout, trainer.model, gamma=0.5, gae_lambda=1.0)

    # Row t * N + n is env step t of env n; rewards arrive at the last sub-step of each env step.
    zeros = np.zeros((rollout.n_steps, rollout.n_envs))
    returns = compute_returns(rollout.rewards[1::2], zeros, rollout.terminated[1::2], rollout.truncated[1::2], 0.5)
    np.testing.assert_allclose(batch.value_targets[1].numpy(), returns.reshape(-1), rtol=1e-5)
    np.testing.assert_allclose(batch.value_targets[0].numpy(), returns.reshape(-1), rtol=1e-5)


def test_clipped_surrogate_loss_clips_the_ratio_on_both_sides() -> None:
    ratios = torch.tensor([1.5, 0.5, 1.1, 0.5, 1.5])
    advantages = torch.tensor([1.0, 1.0, -1.0, -1.0, -2.0])
    old_log_probs = torch.tensor([-1.0, -0.5, -2.0, -0.3, -1.2])
    log_probs = (old_log_probs + ratios.log()).requires_grad_()

    loss = clipped_surrogate_loss(log_probs, old_log_probs, advantages, clip_range=0.2)

    # min(r * A, clip(r, 0.8, 1.2) * A) per sample:
    #   1.5 * 1 -> clipped to 1.2; 0.5 * 1 = 0.5 (below the clipped 0.8); 1.1 * -1 = -1.1 (inside the range);
    #   0.5 * -1 -> clipped to -0.8; 1.5 * -2 = -3.0 (below the clipped -2.4)
    assert loss.item() == pytest.approx(-(1.2 + 0.5 - 1.1 - 0.8 - 3.0) / 5)
    loss.backward()
    clipped = torch.tensor([True, False, False, True, False])
    assert (log_probs.grad[clipped] == 0).all()
    assert (log_probs.grad[~clipped] != 0).all()


@pytest.mark.parametrize(
    ("config_class", "values", "message"),
    [
        (A2CAlgorithmConfig, {"gama": 0.9}, "has no key 'gama' (did you mean 'gamma'?)"),
        (PPOAlgorithmConfig, {"clip_rang": 0.1, "lr": 1e-3}, "'clip_rang' (did you mean 'clip_range'?)"),
        (A2CAlgorithmConfig, {"clip_range": 0.1}, "A2CAlgorithmConfig has no key 'clip_range'"),
        (A2CAlgorithmConfig, {"zzz": 1}, "has no key 'zzz'; its keys are max_env_steps, max_seconds, n_epochs"),
    ],
)
def test_from_config_names_unknown_keys(config_class, values: dict, message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        config_class.from_config(values)
    assert message in str(raised.value)


def test_from_config_maps_keys_onto_fields() -> None:
    evaluator = {"_target_": "maze.train.evaluators.RolloutEvaluator", "n_episodes": 3}
    config = PPOAlgorithmConfig.from_config({"lr": 0.01, "batch_size": 32, "rollout_evaluator": evaluator})
    assert (config.lr, config.batch_size, config.rollout_evaluator) == (0.01, 32, evaluator)
    assert config.gamma == PPOAlgorithmConfig().gamma
    assert PPOAlgorithmConfig.from_config(config) is config
    with pytest.raises(ConfigurationError, match="needs a mapping"):
        A2CAlgorithmConfig.from_config([1, 2])


class TestBestModelSelection:
    @pytest.fixture
    def model(self) -> torch.nn.Linear:
        torch.manual_seed(0)
        return torch.nn.Linear(2, 1)

    def test_writes_the_model_only_on_improvement(self, model, tmp_path: Path, capsys) -> None:
        dump_file = tmp_path / "state_dict.pt"
        selection = BestModelSelection(dump_file, model)

        assert selection.update(1.0) is True
        assert "-> new overall best model 1.00000!" in capsys.readouterr().out
        first_bytes, first_mtime = dump_file.read_bytes(), dump_file.stat().st_mtime_ns
        torch.nn.init.ones_(model.weight)

        assert selection.update(0.5) is False
        assert selection.update(1.0) is False
        assert "new overall best model" not in capsys.readouterr().out
        assert (dump_file.read_bytes(), dump_file.stat().st_mtime_ns) == (first_bytes, first_mtime)

        assert selection.update(2.0) is True
        assert "-> new overall best model 2.00000!" in capsys.readouterr().out
        torch.testing.assert_close(load_state_dict_file(dump_file)["weight"], torch.ones(1, 2))
        assert (selection.best_reward, selection.last_improvement) == (2.0, 4)

    def test_a_resumed_best_reward_must_be_beaten(self, model, tmp_path: Path) -> None:
        selection = BestModelSelection(tmp_path / "state_dict.pt", model, best_reward=5.0)
        assert selection.update(4.0) is False
        assert not (tmp_path / "state_dict.pt").exists()
