"""setup_logging: console and TensorBoard statistics for a training script written in plain Python.

``maze-run`` registers its statistics writers itself (the training runner). A script that
builds a trainer by hand calls :func:`setup_logging` once before training::

    tensorboard_dir = setup_logging(job_config=None, log_dir=".")
    trainer.train()  # epoch tables on the console, scalars in tensorboard_dir

Both writers are the usual ones: :class:`~maze.env.log_stats.writers.LogStatsWriterConsole`
and :class:`~maze.train.tensorboard.LogStatsWriterTensorboard`.
:func:`~maze.env.log_stats.global_state.clear_global_state` unregisters (and closes) them.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from pathlib import Path
from typing import Any, Optional, Union

import yaml
from maze.env.log_stats.global_state import GlobalLogState, register_log_stats_writer
from maze.env.log_stats.writers import LogStatsWriterConsole
from maze.env.utils.loggable_config import loggable_config
from maze.train.tensorboard import LogStatsWriterTensorboard, markdown_code_block

__all__ = ["script_name", "setup_logging"]


def script_name() -> str:
    """The stem of the running script (``train`` for ``python train.py``; ``interactive`` without one)."""
    argv0 = sys.argv[0] if sys.argv else ""
    stem = Path(argv0).stem if argv0 not in ("", "-c", "-m") else ""
    return stem or "interactive"


def setup_logging(
    job_config: Optional[Any] = None, log_dir: Union[str, Path] = ".", tensorboard_figures: bool = True
) -> Path:
    """Registers a console writer and a TensorBoard writer for the statistics of this process.

    The TensorBoard directory is derived from the script name:
    ``<log_dir>/tensorboard/<script name>_<YYYYmmdd-HHMMSS>`` (one new directory per call,
    suffixed ``_1``, ``_2``, ... when the name is taken, so ``tensorboard --logdir
    <log_dir>/tensorboard`` compares the runs). A console writer that is already
    registered is not added twice.

    Args:
        job_config: The run's config (a mapping, an OmegaConf config or a dataclass such as
            an algorithm config), logged into TensorBoard's TEXT tab with the command line;
            None logs the command line only.
        log_dir: Base directory of the TensorBoard directory (created when missing).
        tensorboard_figures: Also draw the statistics' figures (action distributions) into
            the IMAGES tab.

    Returns:
        The TensorBoard directory of this run.
    """
    if not any(isinstance(writer, LogStatsWriterConsole) for writer in GlobalLogState.writers):
        register_log_stats_writer(LogStatsWriterConsole())
    tensorboard_dir = _new_run_dir(Path(log_dir) / "tensorboard", f"{script_name()}_{time.strftime('%Y%m%d-%H%M%S')}")
    writer = LogStatsWriterTensorboard(tensorboard_dir, figures=tensorboard_figures)
    register_log_stats_writer(writer)
    command = shlex.join([sys.executable, *sys.argv])
    if job_config is None:
        writer.write_text("command", markdown_code_block(command, "shell"))
        return tensorboard_dir
    if dataclasses.is_dataclass(job_config) and not isinstance(job_config, type):
        job_config = {field.name: getattr(job_config, field.name) for field in dataclasses.fields(job_config)}
    writer.write_config(yaml.safe_dump(loggable_config(job_config), sort_keys=False), command)
    return tensorboard_dir


def _new_run_dir(parent: Path, name: str) -> Path:
    """``parent/name``, or ``parent/name_<i>`` with the smallest ``i`` not taken; created."""
    parent.mkdir(parents=True, exist_ok=True)
    candidate, index = parent / name, 0
    while True:
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            index += 1
            candidate = parent / f"{name}_{index}"
