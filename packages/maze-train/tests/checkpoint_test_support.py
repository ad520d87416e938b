"""Helpers of the maze-train tests that read, alter or convert a run directory's checkpoints."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import yaml
from maze.train.core.checkpoints import (
    CHECKPOINT_PREFIX,
    MANIFEST_FILE,
    TRAINING_STATE_FILE,
    find_checkpoint,
)


def checkpoint_dir(run_dir: Path) -> Path:
    """The newest complete checkpoint directory of ``run_dir`` (fails the test if there is none)."""
    checkpoint = find_checkpoint(run_dir, follow_origin=False)
    assert checkpoint is not None, (
        f"{run_dir} holds no complete checkpoint: {sorted(p.name for p in run_dir.iterdir())}"
    )
    return checkpoint.directory


def checkpoint_file(run_dir: Path, name: str) -> Path:
    """A file of the newest complete checkpoint of ``run_dir`` (e.g. ``optimizer.pt``)."""
    return checkpoint_dir(run_dir) / name


def training_state(run_dir: Path) -> dict[str, Any]:
    """The ``training_state.yaml`` of the newest complete checkpoint of ``run_dir``."""
    return yaml.safe_load(checkpoint_file(run_dir, TRAINING_STATE_FILE).read_text())


def rewrite_checkpoint_file(run_dir: Path, name: str, payload: bytes) -> None:
    """Replaces a file of the newest checkpoint and its hash in the manifest (the checkpoint stays complete)."""
    directory = checkpoint_dir(run_dir)
    (directory / name).write_bytes(payload)
    manifest = json.loads((directory / MANIFEST_FILE).read_text())
    manifest["files"][name] = hashlib.sha256(payload).hexdigest()
    (directory / MANIFEST_FILE).write_text(json.dumps(manifest))


def to_flat_layout(run_dir: Path) -> None:
    """Turns ``run_dir`` into the layout of older maze versions: the newest checkpoint's files next to ``state_dict.pt``."""
    directory = checkpoint_dir(run_dir)
    for path in directory.iterdir():
        if path.name != MANIFEST_FILE:
            shutil.copy2(path, run_dir / path.name)
    for path in run_dir.glob(f"{CHECKPOINT_PREFIX}*"):
        shutil.rmtree(path)
