"""Builds ``maze-run`` jobs in the test process, so that they use the session's Ray connection."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_module
from maze.env.log_stats.global_state import register_log_stats_writer, unregister_log_stats_writer
from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.writers import LogStatsWriter
from maze.rl.run import build_runner, prepare_config

CARTPOLE_TRAINING = ("env.name=CartPole-v1", "model=vector_obs", "runner.progress=off")
"""CartPole-v1 with a small template model, without progress bars."""


def set_up_job(root: str, overrides: Sequence[str], run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Composes the ``root`` config with ``overrides`` and returns its runner, set up in ``run_dir``."""
    with initialize_config_module("maze.conf", version_base="1.3"):
        cfg = compose(root, overrides=list(overrides))
    run_dir.mkdir(parents=True)
    monkeypatch.chdir(run_dir)
    prepare_config(cfg, run_dir)
    runner = build_runner(cfg)
    runner.setup(cfg)
    return runner


class StatsRecorder(LogStatsWriter):
    """Keeps every statistics table written under ``prefix`` while registered (a ``with`` block)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.tables: list[LogStats] = []

    def write(self, path: Any, step: int, stats: LogStats) -> None:
        """Keeps the table if it has the recorder's prefix."""
        if path == self.prefix:
            self.tables.append(dict(stats))

    def __enter__(self) -> StatsRecorder:
        register_log_stats_writer(self)
        return self

    def __exit__(self, *_: object) -> None:
        unregister_log_stats_writer(self)
