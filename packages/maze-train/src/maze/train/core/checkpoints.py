"""Checkpoint directories: a run's resumable state of one epoch, written as one atomic unit.

Every epoch end a trainer writes ``checkpoint-<epoch>/`` into its run directory::

    checkpoint-3/
        last_state_dict.pt     the model's weights at that epoch end (tensors only)
        optimizer.pt           the optimizer and other trainer state (tensors only; if any)
        training_state.yaml    epochs, env steps, best score, trainer, state dict names
        manifest.json          format, epoch, and the sha256 of every file above

The directory is staged under a hidden temporary name (see :mod:`maze.env.utils.temp_files`),
each file and the directory are flushed to disk, and it is then renamed into place: a run
killed at any instant leaves every ``checkpoint-<n>/`` complete, so a resume continues from
weights and counters of one epoch. The last ``keep`` checkpoints written stay (older ones and
those of an earlier run in the same directory are deleted after each save).

Reading (:func:`find_checkpoint`) takes the newest *complete* checkpoint: its manifest is
present, of this format, and every file matches its hash. A run directory of the earlier flat
layout (the three files next to ``state_dict.pt``) is read as one checkpoint. A run directory
without any checkpoint that was started from ``input_dir`` (a resumed run killed before its
first save) records that directory in :data:`ORIGIN_FILE`; the search continues there.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from maze.env.errors import ConfigurationError
from maze.env.utils.files import atomic_write_bytes, fsync_directory, write_new_file
from maze.env.utils.temp_files import error_naming_target, in_progress, is_stale, remove_stale_temps, temp_name
from maze.env.utils.untrusted_files import load_untrusted_json, load_untrusted_yaml

__all__ = [
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_PREFIX",
    "DEFAULT_KEEP_CHECKPOINTS",
    "LAST_STATE_DICT_FILE",
    "MANIFEST_FILE",
    "OPTIMIZER_FILE",
    "ORIGIN_FILE",
    "TRAINING_STATE_FILE",
    "Checkpoint",
    "CheckpointWriter",
    "clean_run_dir",
    "find_checkpoint",
    "inspect_checkpoint",
    "read_origin",
    "write_origin",
]

LAST_STATE_DICT_FILE = "last_state_dict.pt"
"""The model's weights at the checkpoint's epoch end: a resume continues from them (the best stay in ``state_dict.pt``)."""

OPTIMIZER_FILE = "optimizer.pt"
"""The optimizer (and other trainer) state of a checkpoint."""

TRAINING_STATE_FILE = "training_state.yaml"
"""Epochs, env steps and the best score of a checkpoint."""

MANIFEST_FILE = "manifest.json"
"""Names the files of a checkpoint directory with their sha256, its epoch and format; written last."""

CHECKPOINT_FORMAT = "maze.checkpoint/1"
CHECKPOINT_PREFIX = "checkpoint-"
DEFAULT_KEEP_CHECKPOINTS = 2
"""Checkpoints kept in a run directory (``runner.keep_checkpoints``)."""

ORIGIN_FILE = "input_run.json"
"""Written when a run starts from ``input_dir``: ``{"input_dir": <absolute path>}``."""

_VISIBLE = re.compile(r"^checkpoint-(\d+)$")
_HIDDEN = re.compile(r"^\.checkpoint-(\d+)\..+\.(tmp|old)$")
_MAX_ORIGINS = 32


@dataclass(frozen=True)
class Checkpoint:
    """A complete checkpoint: where its files are and the epoch they belong to.

    Attributes:
        directory: The directory holding the files (``checkpoint-<n>/``; the run directory itself for the flat layout).
        epoch: Epochs trained when it was written (None: a flat-layout state whose file could not be read).
        legacy: It is a run directory of the flat layout (no manifest, no hashes).
    """

    directory: Path
    epoch: Optional[int]
    legacy: bool = False

    @property
    def run_dir(self) -> Path:
        """The run directory it belongs to."""
        return self.directory if self.legacy else self.directory.parent

    def path(self, name: str) -> Path:
        """The path of one of its files (e.g. :data:`OPTIMIZER_FILE`)."""
        return self.directory / name

    def describe(self) -> str:
        """``<run dir>/checkpoint-3`` (or the run directory of the flat layout) for messages."""
        return str(self.directory)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _plain_name(name: Any) -> bool:
    return isinstance(name, str) and Path(name).name == name and name not in ("", ".", "..", MANIFEST_FILE)


def inspect_checkpoint(directory: Path) -> tuple[Optional[int], str]:
    """Whether a checkpoint directory is complete.

    Returns:
        ``(epoch, "")`` for a complete checkpoint, else ``(None, why not)``.
    """
    path = directory / MANIFEST_FILE
    try:
        manifest = load_untrusted_json(path)
    except FileNotFoundError:
        return None, f"it has no {MANIFEST_FILE} (it was not completely written)"
    except (OSError, ValueError, ConfigurationError) as error:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None, f"its {MANIFEST_FILE} cannot be read ({type(error).__name__}: {error})"
    if not isinstance(manifest, dict) or manifest.get("format") != CHECKPOINT_FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        return None, f"its {MANIFEST_FILE} has the format {found!r}, not {CHECKPOINT_FORMAT!r}"
    epoch, files = manifest.get("epoch"), manifest.get("files")
    if not isinstance(epoch, int) or epoch < 0 or not isinstance(files, dict) or not files:
        return None, f"its {MANIFEST_FILE} lacks a valid epoch or file list"
    for name, expected in files.items():
        if not _plain_name(name):
            return None, f"its {MANIFEST_FILE} names {name!r}, which is no file name"
        try:
            if _sha256(directory / name) != expected:
                return None, f"{name} does not match the hash in its {MANIFEST_FILE}"
        except OSError:
            return None, f"{name} is missing"
    return epoch, ""


def _candidates(run_dir: Path) -> list[tuple[int, bool, Path]]:
    """``(epoch in the name, visible, path)`` of the checkpoint directories and their staged or replaced copies."""
    found = []
    try:
        entries = list(run_dir.iterdir())
    except OSError:
        return found
    for path in entries:
        match = _VISIBLE.match(path.name) or _HIDDEN.match(path.name)
        if match is not None and path.is_dir():
            found.append((int(match[1]), not path.name.startswith("."), path))
    return sorted(found, key=lambda item: (item[0], item[1]), reverse=True)


def _legacy_checkpoint(run_dir: Path) -> Optional[Checkpoint]:
    """The flat layout's state (``training_state.yaml`` next to ``state_dict.pt``), if the run directory has one."""
    state_file = run_dir / TRAINING_STATE_FILE
    if not state_file.is_file():
        return None
    try:
        values = load_untrusted_yaml(state_file)
        epoch: Optional[int] = int(values.get("epochs", 0)) if isinstance(values, dict) else None
    except Exception:  # noqa: BLE001 (reading it for the resume names the problem)
        epoch = None
    return Checkpoint(run_dir, epoch, legacy=True)


def find_checkpoint(
    directory: Union[str, os.PathLike],
    follow_origin: bool = True,
    report: Optional[Callable[[str], None]] = None,
) -> Optional[Checkpoint]:
    """The newest complete checkpoint of a run directory (see the module docs), or None.

    Args:
        directory: A run directory, or one checkpoint directory.
        follow_origin: Without a checkpoint of its own, look in the run directory it started from.
        report: Called with a note for every incomplete visible checkpoint that is passed over.
    """
    directory = Path(directory)
    if (directory / MANIFEST_FILE).is_file():
        epoch, _ = inspect_checkpoint(directory)
        return None if epoch is None else Checkpoint(directory, epoch)
    seen: set[Path] = set()
    for _ in range(_MAX_ORIGINS):
        seen.add(directory.resolve())
        for named, visible, path in _candidates(directory):
            epoch, problem = _inspect_named(path, named)
            if epoch is not None:
                return Checkpoint(path, epoch)
            if visible and report is not None:
                report(f"Note: {path} is incomplete ({problem}); looking for an older checkpoint")
        legacy = _legacy_checkpoint(directory)
        if legacy is not None:
            return legacy
        origin = read_origin(directory) if follow_origin else None
        if origin is None or origin.resolve() in seen:
            return None
        directory = origin
    return None


def clean_run_dir(run_dir: Path) -> None:
    """Deletes the stale temporary entries of a run directory (best effort; see :mod:`maze.env.utils.temp_files`).

    A staged or replaced checkpoint that is complete and newer than every visible one (its
    writer was killed between two renames) is renamed into place instead.
    """
    newest = max(
        (
            named
            for named, visible, path in _candidates(run_dir)
            if visible and _inspect_named(path, named)[0] is not None
        ),
        default=-1,
    )
    for named, visible, path in _candidates(run_dir):
        if visible or named <= newest or not is_stale(path):
            continue
        epoch, _ = _inspect_named(path, named)
        if epoch is None:
            continue
        target = run_dir / f"{CHECKPOINT_PREFIX}{epoch}"
        try:
            if target.exists():  # an incomplete copy of the same epoch: the complete one replaces it
                os.replace(target, run_dir / temp_name(target.name, ".old"))
            os.replace(path, target)
        except OSError:
            continue
        newest = epoch
    remove_stale_temps(run_dir)


def _inspect_named(path: Path, named: int) -> tuple[Optional[int], str]:
    """:func:`inspect_checkpoint` of a directory whose name says the epoch ``named`` (a renamed copy is refused)."""
    epoch, problem = inspect_checkpoint(path)
    if epoch is not None and epoch != named:
        return None, f"its {MANIFEST_FILE} is of epoch {epoch}, its name of epoch {named}"
    return epoch, problem


def write_origin(run_dir: Path, input_dir: Path) -> None:
    """Records in :data:`ORIGIN_FILE` that the run in ``run_dir`` started from ``input_dir``."""
    payload = json.dumps({"input_dir": str(Path(input_dir).absolute())}, indent=2) + "\n"
    atomic_write_bytes(run_dir / ORIGIN_FILE, payload.encode("utf-8"))


def read_origin(run_dir: Path) -> Optional[Path]:
    """The ``input_dir`` that the run in ``run_dir`` started from (None: none, or :data:`ORIGIN_FILE` is unreadable)."""
    try:
        value = load_untrusted_json(run_dir / ORIGIN_FILE).get("input_dir")
    except (OSError, ValueError, AttributeError, ConfigurationError):
        return None
    return Path(value) if isinstance(value, str) and value else None


class CheckpointWriter:
    """Writes the checkpoints of one run directory, keeping the last ``keep`` of them.

    Created before the first save of a run: it deletes the directory's stale temporary
    entries (see :func:`clean_run_dir`).

    Args:
        run_dir: The run directory.
        keep: Checkpoints to keep (at least 1).
    """

    def __init__(self, run_dir: Path, keep: int = DEFAULT_KEEP_CHECKPOINTS) -> None:
        self.run_dir = Path(run_dir)
        self.keep = max(1, int(keep))
        self.written: list[str] = []
        """Names of the checkpoints this writer wrote, oldest first."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        clean_run_dir(self.run_dir)

    def save(self, epoch: int, files: Mapping[str, bytes]) -> Path:
        """Writes ``checkpoint-<epoch>/`` with ``files`` (name -> content) and its manifest; deletes the surplus.

        A checkpoint of the same epoch (e.g. saved again after an evaluation) is replaced.

        Returns:
            The checkpoint directory.

        Raises:
            OSError: It could not be written (naming the path); earlier checkpoints stay.
        """
        name = f"{CHECKPOINT_PREFIX}{epoch}"
        staging = self.run_dir / temp_name(name)
        with in_progress(staging):
            try:
                os.mkdir(staging)
                hashes = {}
                for file_name, payload in files.items():
                    write_new_file(staging / file_name, payload)
                    hashes[file_name] = hashlib.sha256(payload).hexdigest()
                manifest = {"format": CHECKPOINT_FORMAT, "epoch": epoch, "files": hashes}
                write_new_file(staging / MANIFEST_FILE, (json.dumps(manifest, indent=2) + "\n").encode("utf-8"))
                fsync_directory(staging)
                self._move_into_place(staging, self.run_dir / name)
            except OSError as error:  # e.g. a full disk: named by the checkpoint's path, not the hidden one
                shutil.rmtree(staging, ignore_errors=True)
                raise error_naming_target(error, staging, self.run_dir / name) from error
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
        if name in self.written:
            self.written.remove(name)
        self.written.append(name)
        self._prune()
        return self.run_dir / name

    def _move_into_place(self, staging: Path, target: Path) -> None:
        """Renames ``staging`` to ``target``; an existing ``target`` is renamed aside first and deleted after."""
        aside = None
        if target.exists():
            aside = self.run_dir / temp_name(target.name, ".old")
            os.replace(target, aside)
        try:
            os.replace(staging, target)
        except OSError:
            if aside is not None:
                os.replace(aside, target)
            raise
        fsync_directory(self.run_dir)
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)

    def _prune(self) -> None:
        """Deletes the checkpoints beyond the last ``keep`` written (also any left by an earlier run here)."""
        kept = set(self.written[-self.keep :])
        self.written = self.written[-self.keep :]
        for _epoch, visible, path in _candidates(self.run_dir):
            if not visible or path.name in kept:
                continue
            aside = self.run_dir / temp_name(path.name, ".old")
            try:
                os.replace(path, aside)  # out of sight first: a kill while deleting leaves no partial checkpoint
            except OSError:
                continue
            shutil.rmtree(aside, ignore_errors=True)
