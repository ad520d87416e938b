"""Checkpoint directories (``checkpoint-<epoch>/``): atomic saves, the newest complete one, cleanup, old layouts.

The kill-at-every-write tests end a forked child right before each file-system operation of a
save (:mod:`maze.env.testing.crash_points`, the effect of a SIGKILL at that instant) and check
that what is left resumes from one consistent epoch: weights, optimizer state and counters of
the same epoch end.
"""

from __future__ import annotations

import errno
import json
import math
import os
import time
from pathlib import Path

import pytest
import torch
from checkpoint_test_support import rewrite_checkpoint_file, to_flat_layout
from maze.env.errors import ConfigurationError
from maze.env.testing.crash_points import count_operations, fork_available, run_killed_before
from maze.env.utils.temp_files import temp_name
from maze.perception.serialization import load_state_dict_file
from maze.train.core.checkpoints import (
    LAST_STATE_DICT_FILE,
    MANIFEST_FILE,
    OPTIMIZER_FILE,
    TRAINING_STATE_FILE,
    Checkpoint,
    clean_run_dir,
    find_checkpoint,
    write_origin,
)
from maze.train.core.training_state import ResumableTrainer, TrainingState
from maze.train.optim import Adam
from maze.train.runners.run_dir import InputRun, describe_resumable_state

needs_fork = pytest.mark.skipif(not fork_available(), reason="the kill tests fork")


class EpochTrainer(ResumableTrainer):
    """A trainer whose every piece of state tells the epoch it belongs to (see :meth:`reach`)."""

    def __init__(self, keep: int = 2) -> None:
        self.state_model = torch.nn.Linear(3, 2)
        self.optimizer = Adam(list(self.state_model.parameters()), lr=0.1)
        self.epochs_done, self.best_reward, self._env_steps = 0, -math.inf, 0
        self.marker = torch.tensor(0.0)
        self.keep_checkpoints = keep

    def reach(self, epoch: int, best: float | None = None) -> EpochTrainer:
        """Sets weights, extra state and counters to those of ``epoch`` (best score: ``best`` or the epoch)."""
        with torch.no_grad():
            for parameter in self.state_model.parameters():
                parameter.fill_(epoch)
        self.epochs_done, self._env_steps = epoch, 100 * epoch
        self.best_reward = float(epoch if best is None else best)
        self.marker = torch.tensor(float(epoch))
        return self

    @property
    def env_steps(self) -> int:
        return self._env_steps

    @env_steps.setter
    def env_steps(self, value: int) -> None:
        self._env_steps = value

    def extra_state_dicts(self) -> dict:
        return {"marker": {"epoch": self.marker}}

    def load_extra_state_dicts(self, state_dicts) -> None:
        self.marker = state_dicts["marker"]["epoch"]


def consistent_epoch(run_dir: Path) -> int | None:
    """The epoch of the newest complete checkpoint, after checking that all its parts belong to it (None: none)."""
    checkpoint = find_checkpoint(run_dir)
    if checkpoint is None:
        return None
    epoch = checkpoint.epoch
    state = TrainingState.load(checkpoint.path(TRAINING_STATE_FILE))
    weights = load_state_dict_file(checkpoint.path(LAST_STATE_DICT_FILE))
    extra = load_state_dict_file(checkpoint.path(OPTIMIZER_FILE))
    assert (state.epochs, state.env_steps) == (epoch, 100 * epoch)
    assert all(bool((tensor == epoch).all()) for tensor in weights.values())
    assert float(extra["marker"]["epoch"]) == epoch and "optimizer" in extra
    resumed = EpochTrainer()
    resumed.restore_training_state(run_dir)
    assert (resumed.epochs_done, resumed.env_steps, float(resumed.marker)) == (epoch, 100 * epoch, epoch)
    return epoch


def hidden_entries(run_dir: Path) -> list[str]:
    return sorted(path.name for path in run_dir.iterdir() if path.name.startswith("."))


# --- saving and finding -----------------------------------------------------------------------


def test_a_save_writes_one_checkpoint_directory_with_a_manifest_and_keeps_the_last_two(tmp_path: Path) -> None:
    trainer = EpochTrainer()
    for epoch in (1, 2, 3):
        assert trainer.reach(epoch).save_training_state(tmp_path) == tmp_path / f"checkpoint-{epoch}"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["checkpoint-2", "checkpoint-3"]
    manifest = json.loads((tmp_path / "checkpoint-3" / MANIFEST_FILE).read_text())
    assert manifest["format"] == "maze.checkpoint/1" and manifest["epoch"] == 3
    assert sorted(manifest["files"]) == [LAST_STATE_DICT_FILE, OPTIMIZER_FILE, TRAINING_STATE_FILE]
    assert consistent_epoch(tmp_path) == 3


def test_keep_checkpoints_and_a_same_epoch_save_replace_in_place(tmp_path: Path) -> None:
    trainer = EpochTrainer(keep=1)
    trainer.reach(1).save_training_state(tmp_path)
    trainer.reach(1, best=5.0).save_training_state(tmp_path)  # e.g. saved again after an evaluation
    assert sorted(path.name for path in tmp_path.iterdir()) == ["checkpoint-1"]
    assert TrainingState.load(tmp_path / "checkpoint-1" / TRAINING_STATE_FILE).best_reward == 5.0
    trainer.reach(2).save_training_state(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["checkpoint-2"]


def test_checkpoints_of_an_earlier_run_in_the_same_directory_are_replaced_after_the_first_save(tmp_path: Path) -> None:
    EpochTrainer().reach(7).save_training_state(tmp_path)
    EpochTrainer().reach(1).save_training_state(tmp_path)  # a new run here (overwrite_run_dir=true)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["checkpoint-1"]


def test_an_incomplete_newer_checkpoint_is_passed_over_with_a_note(tmp_path: Path, capsys) -> None:
    trainer = EpochTrainer()
    trainer.reach(1).save_training_state(tmp_path)
    trainer.reach(2).save_training_state(tmp_path)
    (tmp_path / "checkpoint-2" / OPTIMIZER_FILE).write_bytes(b"bit rot")
    assert consistent_epoch(tmp_path) == 1
    find_checkpoint(tmp_path, report=print)
    assert f"Note: {tmp_path / 'checkpoint-2'} is incomplete (optimizer.pt does not match the hash" in (
        capsys.readouterr().out
    )
    (tmp_path / "checkpoint-1" / MANIFEST_FILE).unlink()
    assert find_checkpoint(tmp_path) is None
    assert describe_resumable_state(tmp_path).startswith("no epoch has finished")


def test_a_flat_layout_run_directory_is_read_as_one_checkpoint(tmp_path: Path) -> None:
    trainer = EpochTrainer()
    trainer.reach(4).save_training_state(tmp_path)
    to_flat_layout(tmp_path)
    assert find_checkpoint(tmp_path) == Checkpoint(tmp_path, 4, legacy=True)
    assert consistent_epoch(tmp_path) == 4
    assert "the state after 4 epochs (last_state_dict.pt, optimizer.pt, training_state.yaml)" in (
        describe_resumable_state(tmp_path)
    )
    trainer.reach(5).save_training_state(tmp_path)  # a new-layout checkpoint wins over the flat files
    assert consistent_epoch(tmp_path) == 5


def test_a_manifest_that_names_a_path_is_refused(tmp_path: Path) -> None:
    EpochTrainer().reach(1).save_training_state(tmp_path)
    manifest_file = tmp_path / "checkpoint-1" / MANIFEST_FILE
    manifest = json.loads(manifest_file.read_text())
    manifest["files"]["../state_dict.pt"] = "0" * 64
    manifest_file.write_text(json.dumps(manifest))
    assert find_checkpoint(tmp_path) is None


def test_a_save_that_fails_on_a_full_disk_names_the_checkpoint_and_keeps_the_previous_one(
    tmp_path: Path, monkeypatch
) -> None:
    trainer = EpochTrainer()
    trainer.reach(1).save_training_state(tmp_path)
    write = os.write

    def full_disk(descriptor: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match=r"No space left on device") as failure:
        trainer.reach(2).save_training_state(tmp_path)
    monkeypatch.setattr(os, "write", write)
    assert failure.value.filename == str(tmp_path / "checkpoint-2" / LAST_STATE_DICT_FILE)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["checkpoint-1"] and consistent_epoch(tmp_path) == 1


def test_a_checkpoint_renamed_to_another_epoch_is_refused(tmp_path: Path) -> None:
    EpochTrainer().reach(1).save_training_state(tmp_path)
    (tmp_path / "checkpoint-1").rename(tmp_path / "checkpoint-9")
    assert find_checkpoint(tmp_path) is None


# --- stale temporary entries ------------------------------------------------------------------


def dead_writer_name(base: str) -> str:
    """A temporary name of ``base`` as a process of this host that has ended wrote it."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return temp_name(base).replace(f".p{os.getpid()}@", f".p{pid}@")


@needs_fork
def test_stale_temporary_entries_are_deleted_when_a_resume_opens_the_directory(tmp_path: Path) -> None:
    EpochTrainer().reach(1).save_training_state(tmp_path)
    model_files(tmp_path)
    dead_file, dead_dir = dead_writer_name("last_state_dict.pt"), dead_writer_name("checkpoint-2")
    (tmp_path / dead_file).write_bytes(b"half")
    (tmp_path / dead_dir).mkdir()
    (tmp_path / dead_dir / LAST_STATE_DICT_FILE).write_bytes(b"half")
    (tmp_path / temp_name("state_dict.pt")).write_bytes(b"this process's name, but no write of it in progress")
    older = tmp_path / ".training_state.yaml.k2j3h4.tmp"  # an older maze's name: stale after an hour
    older.write_bytes(b"half")
    os.utime(older, (time.time() - 2 * 3600,) * 2)
    recent = tmp_path / ".optimizer.pt.x7y8z9.tmp"
    recent.write_bytes(b"maybe still being written by another host")

    assert InputRun.open(tmp_path).checkpoint == Checkpoint(tmp_path / "checkpoint-1", 1)
    assert hidden_entries(tmp_path) == [recent.name]
    assert consistent_epoch(tmp_path) == 1


def test_a_complete_checkpoint_whose_rename_was_cut_off_is_found_and_moved_into_place(tmp_path: Path) -> None:
    EpochTrainer().reach(1).save_training_state(tmp_path)
    staged = tmp_path / temp_name("checkpoint-1")
    (tmp_path / "checkpoint-1").rename(staged)  # as after a kill between the two renames of a same-epoch save
    assert find_checkpoint(tmp_path) == Checkpoint(staged, 1)
    clean_run_dir(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["checkpoint-1"] and consistent_epoch(tmp_path) == 1


# --- a resumed run killed before its first save -----------------------------------------------


def model_files(run_dir: Path) -> None:
    """The files every run directory has besides its checkpoints (the resume reads them)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "state_dict.pt").write_bytes(b"")
    (run_dir / "spaces_config.yaml").write_text("{}")


def test_a_resumed_run_killed_before_its_first_save_resumes_from_the_run_it_started_from(
    tmp_path: Path, capsys
) -> None:
    first, second, third = tmp_path / "first", tmp_path / "second", tmp_path / "third"
    EpochTrainer().reach(3).save_training_state(first)
    model_files(first)
    model_files(second)
    write_origin(second, first)
    write_origin(third, second)  # killed even before it wrote its model files

    run = InputRun.open(third)
    assert run.directory == first and run.checkpoint == Checkpoint(first / "checkpoint-3", 3)
    output = capsys.readouterr().out
    assert f"Note: input_dir {third} holds no checkpoint" in output and f"{first / 'checkpoint-3'} (epoch 3)" in output
    run = InputRun.open(second)
    assert run.directory == second and run.checkpoint.run_dir == first and run.trainer == "EpochTrainer"
    assert f"the newest complete state is {first / 'checkpoint-3'} (after 3 epochs) of the run it had started" in (
        describe_resumable_state(second)
    )


def test_a_resume_from_a_run_whose_input_dir_is_gone_names_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    model_files(run)
    write_origin(run, tmp_path / "deleted")
    with pytest.raises(ConfigurationError, match=r"does not exist any more.*delete .*input_run.json"):
        InputRun.open(run)


# --- kill at every write ----------------------------------------------------------------------

SCENARIOS = {
    "first save": ((), 1, 2, {None, 1}),
    "next epoch": ((1,), 2, 2, {1, 2}),
    "next epoch, keeping one": ((1,), 2, 1, {1, 2}),
    "pruning the oldest": ((1, 2), 3, 2, {2, 3}),
    "same epoch again": ((1, 2), 2, 2, {2}),
}
"""Epochs saved before, the epoch saved while killed, ``keep_checkpoints``, the epochs a resume may find then."""


def prepared(run_dir: Path, before: tuple[int, ...], keep: int) -> EpochTrainer:
    run_dir.mkdir()
    trainer = EpochTrainer(keep)
    for epoch in before:
        trainer.reach(epoch).save_training_state(run_dir)
    return trainer


@needs_fork
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_save_killed_before_any_file_operation_leaves_a_consistent_epoch(tmp_path: Path, scenario: str) -> None:
    before, epoch, keep, allowed = SCENARIOS[scenario]
    trainer = prepared(tmp_path / "count", before, keep).reach(epoch, best=epoch + 0.5)
    operations = count_operations(lambda: trainer.save_training_state(tmp_path / "count"))
    assert operations >= 10
    found = set()
    for n in range(1, operations + 1):
        run_dir = tmp_path / f"killed-{n}"
        trainer = prepared(run_dir, before, keep).reach(epoch, best=epoch + 0.5)
        assert run_killed_before(lambda: trainer.save_training_state(run_dir), n)  # noqa: B023 (called at once)
        resumed = consistent_epoch(run_dir)
        assert resumed in allowed, (n, resumed)
        found.add(resumed)
        clean_run_dir(run_dir)  # as the next resume from it does: nothing stale stays, the epoch is the same
        assert hidden_entries(run_dir) == [] and consistent_epoch(run_dir) == resumed
    assert found == allowed  # the kills cover the state before the save and after it


def test_rewriting_a_checkpoint_file_keeps_it_complete(tmp_path: Path) -> None:
    """The test helper that alters a checkpoint updates its manifest (other tests rely on it)."""
    EpochTrainer().reach(1).save_training_state(tmp_path)
    state = TrainingState.load(tmp_path / "checkpoint-1" / TRAINING_STATE_FILE)
    state.best_reward = 42.0
    rewrite_checkpoint_file(tmp_path, TRAINING_STATE_FILE, state.to_bytes())
    assert find_checkpoint(tmp_path) is not None
