"""The shared training guards: validated algorithm configs, the non-finite guard, resumable state."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import pytest
import torch
from checkpoint_test_support import training_state
from maze.env.errors import ConfigurationError
from maze.env.utils.finite import NonFiniteValueError
from maze.train.core.config import AlgorithmConfig, bounded
from maze.train.core.model_selection import BestModelSelection
from maze.train.core.training_state import ResumableTrainer, TrainingState
from maze.train.guards import NonFiniteGuard
from maze.train.optim import Adam
from maze.train.trainers.ppo import PPOAlgorithmConfig


@dataclass
class _Config(AlgorithmConfig):
    lr: float = bounded(1e-3, gt=0)
    batch_size: int = bounded(32, ge=1)
    gamma: float = bounded(0.99, gt=0, le=1)
    target: Optional[float] = None
    name: str = "x"
    flag: bool = False


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"lr": "abc"}, "algorithm.lr='abc' is not a valid number"),
        ({"lr": -1}, "algorithm.lr=-1 is out of range; it must be > 0"),
        ({"lr": float("nan")}, "algorithm.lr=nan is out of range; it must be > 0"),
        ({"batch_size": 0}, "algorithm.batch_size=0 is out of range; it must be >= 1"),
        ({"batch_size": 2.5}, "algorithm.batch_size=2.5 is not a valid integer"),
        ({"batch_size": True}, "algorithm.batch_size=True is not a valid integer"),
        (
            {"batch_size": 1e3},
            "algorithm.batch_size=1000.0 is not a valid integer; write it as an integer: algorithm.batch_size=1000",
        ),
        ({"gamma": 1.01}, "algorithm.gamma=1.01 is out of range; it must be > 0 and <= 1"),
        ({"target": "high"}, "algorithm.target='high' is not a valid number or null"),
        ({"name": 3}, "algorithm.name=3 is not a valid string"),
        ({"flag": "yes"}, "algorithm.flag='yes' is not a valid boolean (true/false)"),
    ],
)
def test_invalid_values_name_key_value_and_allowed_range(values: dict, message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        _Config.from_config(values)
    assert str(raised.value) == message


def test_valid_values_pass_and_ints_are_numbers() -> None:
    config = _Config.from_config({"lr": 1, "gamma": 1, "target": None, "flag": True})
    assert (config.lr, config.gamma, config.target, config.flag) == (1, 1, None, True)
    assert PPOAlgorithmConfig.from_config({"lr": 3e-4}).batch_size == 64
    with pytest.raises(ConfigurationError, match="algorithm.n_optimization_epochs=0 is out of range"):
        PPOAlgorithmConfig.from_config({"n_optimization_epochs": 0})


def test_guard_stops_with_one_message_or_skips_and_counts() -> None:
    guard = NonFiniteGuard(source="MyEnv")
    guard.epoch = 3
    rewards = np.zeros((4, 2), dtype=np.float32)
    assert guard.rewards_ok(rewards) and guard.loss_ok(torch.tensor(1.0))
    rewards[2, 1] = np.nan
    with pytest.raises(
        NonFiniteValueError, match=r"epoch 3: training env 1 \(MyEnv\) returned the reward nan at call 2"
    ):
        guard.rewards_ok(rewards)
    with pytest.raises(NonFiniteValueError, match="observation 'obs'\\[2\\] = inf"):
        guard.check_observation({"obs": np.array([[0.0, 0.0, 0.0], [0.0, 0.0, np.inf]])}, env_step=10, substep=0)

    skipping = NonFiniteGuard("skip")
    assert not skipping.loss_ok(torch.tensor(float("inf")))
    linear = torch.nn.Linear(2, 1)
    linear(torch.ones(1, 2)).sum().backward()
    linear.bias.grad.fill_(float("nan"))
    assert not skipping.gradients_ok(float("nan"), linear)
    assert skipping.skipped == 2
    assert list(skipping.epoch_stats().values()) == [2]
    with pytest.raises(ConfigurationError, match="runner.non_finite='ignore' is not supported"):
        NonFiniteGuard("ignore")


def test_model_selection_never_saves_non_finite_parameters_or_scores(tmp_path: Path, capsys) -> None:
    model = torch.nn.Linear(2, 1)
    selection = BestModelSelection(tmp_path / "state_dict.pt", model)
    assert not selection.update(math.nan)
    assert "not finite: never a best model" in capsys.readouterr().out
    assert selection.update(1.0) and (tmp_path / "state_dict.pt").is_file()
    good = (tmp_path / "state_dict.pt").read_bytes()
    torch.nn.init.constant_(model.weight, math.nan)
    with pytest.raises(NonFiniteValueError, match="weight holds NaN or inf"):
        selection.update(2.0)
    assert (tmp_path / "state_dict.pt").read_bytes() == good


class _Trainer(ResumableTrainer):
    def __init__(self) -> None:
        self.parameter = torch.nn.Parameter(torch.ones(3))
        self.optimizer = Adam([self.parameter], lr=0.1)
        self.epochs_done, self.best_reward, self._env_steps = 0, float("-inf"), 0
        self.coefficient = torch.tensor(0.5)

    @property
    def env_steps(self) -> int:
        return self._env_steps

    @env_steps.setter
    def env_steps(self, value: int) -> None:
        self._env_steps = value

    def extra_state_dicts(self) -> dict:
        return {"entropy": {"coefficient": self.coefficient}}

    def load_extra_state_dicts(self, state_dicts) -> None:
        self.coefficient = state_dicts["entropy"]["coefficient"]


class _OtherTrainer(_Trainer):
    pass


def test_resumable_state_round_trips_and_other_trainers_only_warm_start(tmp_path: Path) -> None:
    trainer = _Trainer()
    trainer.parameter.sum().backward()
    trainer.optimizer.step()
    trainer.epochs_done, trainer.env_steps, trainer.best_reward = 4, 1000, 12.5
    trainer.coefficient = torch.tensor(0.25)
    assert trainer.save_training_state(tmp_path) == tmp_path / "checkpoint-4"
    assert training_state(tmp_path)["state_dicts"] == ["optimizer", "entropy"]

    resumed = _Trainer()
    restored = resumed.restore_training_state(tmp_path)
    assert restored == ["epoch 4, 1000 env steps, best score 12.500", "optimizer state", "entropy"]
    assert (resumed.epochs_done, resumed.env_steps, resumed.best_reward) == (4, 1000, 12.5)
    assert float(resumed.coefficient) == 0.25 and torch.equal(
        resumed.optimizer.exp_avg[0], trainer.optimizer.exp_avg[0]
    )

    other = _OtherTrainer()
    assert other.restore_training_state(tmp_path)[0].startswith("warm start from a _Trainer run")
    assert (other.epochs_done, other.env_steps, other.best_reward, float(other.coefficient)) == (0, 0, -math.inf, 0.5)


def test_training_state_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "training_state.yaml"
    path.write_text("epochs: [1, 2")
    with pytest.raises(ConfigurationError, match="training_state.yaml' is not a valid training state"):
        TrainingState.load(path)
    TrainingState(best_reward=float("-inf")).save(path)
    assert TrainingState.load(path).best_reward == float("-inf")


def test_a_training_state_with_yaml_aliases_is_refused_naming_the_file(tmp_path: Path) -> None:
    from maze.env.utils.untrusted_files import UntrustedFileError

    path = tmp_path / "training_state.yaml"
    laughs = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    laughs += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    path.write_text("\n".join([*laughs, "epochs: 1", "state_dicts: *l8", ""]))
    with pytest.raises(UntrustedFileError, match="training_state.yaml' uses the YAML anchor &l0"):
        TrainingState.load(path)
