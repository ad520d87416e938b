"""Fixtures of the rollout runner tests (helpers: rollout_support)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from pathlib import Path

import pytest
from maze.env.log_stats.global_state import clear_global_state
from maze.env.utils.library_output import show_library_output

show_library_output(force=True)  # maze's library lines on stdout, as maze-run shows them (tests read them there)


@pytest.fixture
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty working directory (runners write there), a fresh log state, and no worker left behind."""
    monkeypatch.chdir(tmp_path)
    clear_global_state()
    yield tmp_path
    clear_global_state()
    assert multiprocessing.active_children() == [], "a rollout left worker processes running"
