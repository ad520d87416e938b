"""Resume continues from the latest weights (``checkpoint-<n>/last_state_dict.pt``), not from the best model (``state_dict.pt``).

Every trainer that resumes goes through the shared layer (the runner's ``load_input_model``
and ``_attach_common_layer``, :class:`ResumableTrainer`); PPO, SAC and ES stand for them here.
Their evaluations are scripted so that the first epoch is the best and the second is not: the
best and the latest weights then differ.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml
from checkpoint_test_support import checkpoint_file, to_flat_layout
from es_test_support import es_job_config, set_up_es
from maze.env.errors import ConfigurationError
from maze.perception.serialization import load_state_dict_file, save_state_dict
from maze.train.core.training_state import TrainingState
from maze.train.runners.actor_critic_runner import ActorCriticRunner
from sac_test_support import sac_config
from sac_test_support import set_up as set_up_sac
from train_test_support import small_model_config

PPO = "maze.train.trainers.ppo.PPO"
A2C = "maze.train.trainers.a2c.A2C"
CARTPOLE = {"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"}
SCORES = (1.0, 0.0)
"""Scripted evaluation scores of a two-epoch run: the first epoch is the best, the second the latest."""


def ppo_config(**algorithm: Any) -> dict[str, Any]:
    """A ``conf_train`` job config of PPO on CartPole with a tiny budget (two epochs)."""
    return {
        "env": CARTPOLE,
        "wrappers": {},
        "model": small_model_config("template", "cartpole"),
        "algorithm": {
            "n_epochs": 2,
            "epoch_length": 2,
            "n_rollout_steps": 16,
            "patience": 0,
            "rollout_evaluator": {"_target_": "maze.train.evaluators.RolloutEvaluator", "n_episodes": 1},
            **algorithm,
        },
        "seeding": {"env_base_seed": 1, "agent_base_seed": 1},
        "input_dir": "",
    }


def set_up_ppo(directory: Path, cfg: dict, trainer: str = PPO) -> ActorCriticRunner:
    """An A2C/PPO dev runner set up with ``directory`` as its run directory."""
    directory.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(directory)
        runner = ActorCriticRunner(trainer, concurrency=1)
        runner.setup(cfg)
    return runner


@dataclass(frozen=True)
class Algorithm:
    """How to set up a runner of one algorithm on a job config with ``n_epochs`` (and ``input_dir``)."""

    set_up: Callable[[Path, dict], Any]
    config: Callable[..., dict]


ALGORITHMS = {
    "ppo": Algorithm(set_up_ppo, ppo_config),
    "sac": Algorithm(set_up_sac, sac_config),
    "es": Algorithm(set_up_es, es_job_config),
}


def job(algorithm: Algorithm, n_epochs: int = 2, input_dir: Any = "") -> dict:
    """The algorithm's job config with ``n_epochs`` in total, resuming ``input_dir`` (empty: none)."""
    return {**algorithm.config(n_epochs=n_epochs), "input_dir": str(input_dir)}


def script_evaluations(runner: Any, scores: tuple[float, ...]) -> None:
    """Makes the runner's evaluator score the epochs with ``scores`` in turn (model selection sees each one)."""
    remaining = iter(scores)

    def evaluate(policy: Any) -> float:
        score = next(remaining)
        runner.model_selection.update(score)
        return score

    runner.trainer.evaluator.evaluate = evaluate


def weights(runner: Any) -> dict[str, Any]:
    """The current weights of the model that the runner's model selection keeps (policy and critic)."""
    return runner.model_selection.model.state_dict()


def policy_of(state: dict[str, Any]) -> dict[str, Any]:
    """The policy networks of a model's state dict."""
    return {key: value for key, value in state.items() if key.startswith("policy")}


def same(state: dict[str, Any], other: dict[str, Any]) -> bool:
    """Two (nested) state dicts hold the same keys and equal tensors."""
    if state.keys() != other.keys():
        return False
    return all(
        same(value, other[key]) if isinstance(value, dict) else torch.equal(value, other[key])
        for key, value in state.items()
    )


@pytest.fixture(scope="module", params=sorted(ALGORITHMS))
def finished_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A finished two-epoch run of each algorithm whose best epoch (the first) is not its last.

    Its final weights are kept in ``final_weights.pt`` (outside the files a run writes).
    """
    directory = tmp_path_factory.mktemp(f"{request.param}_run")
    runner = ALGORITHMS[request.param].set_up(directory, job(ALGORITHMS[request.param]))
    script_evaluations(runner, SCORES)
    runner.run()
    runner.close()
    save_state_dict(weights(runner), directory.parent / "final_weights.pt")
    return request.param, directory


def test_every_epoch_end_writes_the_latest_weights_and_records_them(finished_run: tuple[str, Path]) -> None:
    _, directory = finished_run
    final = load_state_dict_file(directory.parent / "final_weights.pt")
    assert same(load_state_dict_file(checkpoint_file(directory, "last_state_dict.pt")), final)
    state = TrainingState.load(checkpoint_file(directory, "training_state.yaml"))
    assert (state.epochs, state.best_reward, state.last_weights) == (2, max(SCORES), "last_state_dict.pt")
    assert sorted(path.name for path in directory.glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2"]
    best, latest = (
        load_state_dict_file(directory / "state_dict.pt"),
        load_state_dict_file(checkpoint_file(directory, "last_state_dict.pt")),
    )
    assert best.keys() == latest.keys() and not same(best, latest)  # the best is the first epoch's model


def test_a_resume_continues_from_the_latest_weights_and_keeps_the_best_model(
    finished_run: tuple[str, Path], tmp_path: Path, capsys
) -> None:
    name, input_dir = finished_run
    runner = ALGORITHMS[name].set_up(tmp_path, job(ALGORITHMS[name], n_epochs=3, input_dir=input_dir))

    latest = load_state_dict_file(checkpoint_file(input_dir, "last_state_dict.pt"))
    assert same(weights(runner), latest)
    assert runner.trainer.epochs_done == 2
    output = capsys.readouterr().out
    assert (
        f"Initialized the model from input_dir {input_dir} with its latest weights (checkpoint-2/last_state_dict.pt"
        in output
    )
    # The new run directory is resumable at once: the same latest state, and the best model of input_dir.
    assert same(load_state_dict_file(tmp_path / "checkpoint-2" / "last_state_dict.pt"), latest)
    assert same(load_state_dict_file(tmp_path / "state_dict.pt"), load_state_dict_file(input_dir / "state_dict.pt"))
    assert TrainingState.load(tmp_path / "checkpoint-2" / "training_state.yaml").epochs == 2
    runner.close()


def flat_layout_copy(finished: Path, older: Path) -> Path:
    """A copy of a finished run directory in the layout of older maze versions (see ``to_flat_layout``)."""
    shutil.copytree(finished, older)
    to_flat_layout(older)
    return older


def test_a_run_directory_of_the_flat_layout_resumes_from_its_latest_weights(
    finished_run: tuple[str, Path], tmp_path: Path, capsys
) -> None:
    """Run directories of older maze versions hold the checkpoint's files next to ``state_dict.pt``."""
    name, finished = finished_run
    older = flat_layout_copy(finished, tmp_path / "older")
    saved = TrainingState.load(older / "training_state.yaml")

    runner = ALGORITHMS[name].set_up(tmp_path / "resumed", job(ALGORITHMS[name], n_epochs=3, input_dir=older))

    assert same(weights(runner), load_state_dict_file(older / "last_state_dict.pt"))
    assert runner.trainer.epochs_done == 2 and runner.trainer.env_steps >= saved.env_steps  # SAC: + its refill
    output = capsys.readouterr().out
    assert f"Initialized the model from input_dir {older} with its latest weights (last_state_dict.pt;" in output
    assert f"Resumed from input_dir {older}: epoch 2, {saved.env_steps} env steps" in output
    assert TrainingState.load(tmp_path / "resumed" / "checkpoint-2" / "training_state.yaml").epochs == 2
    runner.close()


def test_an_older_run_directory_without_latest_weights_resumes_from_its_best_model_with_a_note(
    finished_run: tuple[str, Path], tmp_path: Path, capsys
) -> None:
    name, finished = finished_run
    older = flat_layout_copy(finished, tmp_path / "older")
    (older / "last_state_dict.pt").unlink(missing_ok=True)
    state = yaml.safe_load((older / "training_state.yaml").read_text())
    state.pop("last_weights", None)
    (older / "training_state.yaml").write_text(yaml.safe_dump(state))

    runner = ALGORITHMS[name].set_up(tmp_path / "resumed", job(ALGORITHMS[name], n_epochs=3, input_dir=older))

    best = load_state_dict_file(older / "state_dict.pt")
    assert same(policy_of(weights(runner)), policy_of(best))  # SAC's critics come from its optimizer.pt
    assert f"Note: input_dir {older} has no last_state_dict.pt" in capsys.readouterr().out
    runner.close()


def test_a_warm_start_of_another_trainer_starts_from_the_best_model(tmp_path: Path, capsys) -> None:
    """A2C from a PPO run: the best model initializes it, the PPO run's latest weights and counters do not."""
    ppo = set_up_ppo(tmp_path / "ppo", job(ALGORITHMS["ppo"]))
    script_evaluations(ppo, SCORES)
    ppo.run()
    ppo.close()

    a2c = set_up_ppo(tmp_path / "a2c", job(ALGORITHMS["ppo"], input_dir=tmp_path / "ppo"), trainer=A2C)

    assert same(weights(a2c), load_state_dict_file(tmp_path / "ppo" / "state_dict.pt"))
    assert not same(weights(a2c), load_state_dict_file(checkpoint_file(tmp_path / "ppo", "last_state_dict.pt")))
    output = capsys.readouterr().out
    assert "with its latest weights" not in output and "warm start from a PPO run" in output
    assert a2c.trainer.epochs_done == 0
    a2c.close()


def test_resuming_a_run_that_has_its_epochs_trains_nothing_says_so_and_stays_resumable(
    finished_run: tuple[str, Path], tmp_path: Path, capsys
) -> None:
    name, input_dir = finished_run
    runner = ALGORITHMS[name].set_up(tmp_path, job(ALGORITHMS[name], n_epochs=2, input_dir=input_dir))
    runner.run()
    runner.close()

    output = capsys.readouterr().out
    assert "Training stopped: nothing to train: the run already has 2 epochs >= n_epochs=2" in output
    assert "Iteration 2" not in output
    summary = json.loads((tmp_path / "training_summary.json").read_text())
    resumed, source = (
        TrainingState.load(checkpoint_file(path, "training_state.yaml")) for path in (tmp_path, input_dir)
    )
    refill = resumed.env_steps - source.env_steps  # SAC refills its replay buffer before training: those steps count
    assert refill == (runner.trainer.workers.stored_transitions() if name == "sac" else 0)
    assert summary["epochs"] == resumed.epochs == 2 and summary["env_steps"] == resumed.env_steps
    assert resumed.trainer == source.trainer and resumed.state_dicts == source.state_dicts
    for file in ("last_state_dict.pt", "optimizer.pt"):
        assert same(
            load_state_dict_file(checkpoint_file(tmp_path, file)),
            load_state_dict_file(checkpoint_file(input_dir, file)),
        )


@pytest.mark.parametrize("name", ["../state_dict.pt", "/etc/passwd", ".."])
def test_the_latest_weights_of_a_training_state_are_a_file_of_its_run_directory(tmp_path: Path, name: str) -> None:
    (tmp_path / "training_state.yaml").write_text(yaml.safe_dump({"epochs": 1, "last_weights": name}))
    with pytest.raises(ConfigurationError, match="last_weights must be a file name in the run directory"):
        TrainingState.load(tmp_path / "training_state.yaml")
