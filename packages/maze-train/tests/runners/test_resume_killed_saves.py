"""A PPO run killed at every file-system operation of an epoch-end save resumes from one consistent epoch.

The run trains two epochs on CartPole. When its trainer saves the second epoch, the test first
lets forked children perform that very save, each killed right before another file-system
operation (:mod:`maze.env.testing.crash_points`), and keeps what each left. Every such run
directory must hold the weights, optimizer state and counters of one epoch end (the first or the
second, as recorded at the saves), and a real resume from it continues that epoch.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch
from maze.env.testing.crash_points import count_operations, fork_available, run_killed_before
from maze.perception.serialization import load_state_dict_file
from maze.train.core.checkpoints import (
    LAST_STATE_DICT_FILE,
    OPTIMIZER_FILE,
    TRAINING_STATE_FILE,
    clean_run_dir,
    find_checkpoint,
)
from maze.train.core.training_state import TrainingState
from test_resume_latest import ALGORITHMS as RESUMABLE
from test_resume_latest import job, policy_of, same, set_up_ppo, weights

pytestmark = pytest.mark.skipif(not fork_available(), reason="the kill tests fork")


def checkpoint_entries(run_dir: Path) -> list[Path]:
    """The checkpoint directories and the hidden temporary entries of a run directory."""
    return [path for path in run_dir.iterdir() if path.name.startswith(("checkpoint-", "."))]


def copy_checkpoint_entries(source: Path, target: Path) -> None:
    """Makes the checkpoint entries of ``target`` those of ``source`` (what a save changes; the rest stays)."""
    for path in checkpoint_entries(target):
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    for path in checkpoint_entries(source):
        shutil.copytree(path, target / path.name)


@pytest.fixture(scope="module")
def killed_saves(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[int, dict[str, Any]], list[Path]]:
    """What the two epoch ends of a PPO run saved (epoch -> state), and the run directories of the killed saves."""
    root = tmp_path_factory.mktemp("killed_saves")
    run_dir = root / "run"
    runner = set_up_ppo(run_dir, job(RESUMABLE["ppo"], n_epochs=2))
    trainer, save = runner.trainer, runner.trainer.save_training_state
    saved: dict[int, dict[str, Any]] = {}
    killed: list[Path] = []

    def kill_every_save_of_the_second_epoch(*args: Any) -> Any:
        epoch = trainer.epochs_done
        saved[epoch] = {
            "weights": copy.deepcopy(weights(runner)),
            "optimizer": copy.deepcopy(trainer.optimizer.state_dict()),
            "env_steps": trainer.env_steps,
        }
        if epoch == 2 and not killed:
            backup = root / "backup"
            backup.mkdir()
            copy_checkpoint_entries(run_dir, backup)
            operations = count_operations(lambda: save(*args))
            copy_checkpoint_entries(backup, run_dir)
            for n in range(1, operations + 1):
                assert run_killed_before(lambda: save(*args), n)  # noqa: B023 (called at once)
                killed.append(root / f"killed-{n}")
                shutil.copytree(run_dir, killed[-1], ignore=shutil.ignore_patterns("events.out.*"))
                copy_checkpoint_entries(backup, run_dir)
        return save(*args)

    trainer.save_training_state = kill_every_save_of_the_second_epoch
    runner.run()
    runner.close()
    return saved, killed


def test_every_killed_save_leaves_the_weights_optimizer_and_counters_of_one_epoch(killed_saves) -> None:
    saved, killed = killed_saves
    assert sorted(saved) == [1, 2] and len(killed) >= 10
    epochs = set()
    for run_dir in killed:
        checkpoint = find_checkpoint(run_dir)
        assert checkpoint is not None and checkpoint.epoch in saved, run_dir
        expected = saved[checkpoint.epoch]
        state = TrainingState.load(checkpoint.path(TRAINING_STATE_FILE))
        assert (state.epochs, state.env_steps) == (checkpoint.epoch, expected["env_steps"]), run_dir
        assert same(load_state_dict_file(checkpoint.path(LAST_STATE_DICT_FILE)), expected["weights"]), run_dir
        optimizer = load_state_dict_file(checkpoint.path(OPTIMIZER_FILE))["optimizer"]
        assert same(optimizer, expected["optimizer"]), run_dir
        clean_run_dir(run_dir)
        assert not [path.name for path in run_dir.iterdir() if path.name.startswith(".")], run_dir
        epochs.add(checkpoint.epoch)
    assert epochs == {1, 2}  # kills before the rename keep epoch 1, kills after it find epoch 2


def test_a_resume_from_a_killed_save_continues_its_epoch(killed_saves, tmp_path: Path) -> None:
    saved, killed = killed_saves
    for epoch, run_dir in ((1, killed[0]), (2, killed[-1])):
        assert find_checkpoint(run_dir).epoch == epoch
        resumed = set_up_ppo(tmp_path / f"resumed-{epoch}", job(RESUMABLE["ppo"], n_epochs=3, input_dir=run_dir))
        trainer = resumed.trainer
        assert (trainer.epochs_done, trainer.env_steps) == (epoch, saved[epoch]["env_steps"])
        assert same(weights(resumed), saved[epoch]["weights"])
        assert same(policy_of(trainer.model.state_dict()), policy_of(saved[epoch]["weights"]))
        assert all(
            torch.equal(moment, saved[epoch]["optimizer"]["exp_avg"][str(index)])
            for index, moment in enumerate(trainer.optimizer.exp_avg)
        )
        resumed.close()
