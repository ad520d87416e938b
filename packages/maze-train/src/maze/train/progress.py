"""Progress while training: live bars on a terminal, one line per epoch otherwise.

Trainers open a bar per phase (:meth:`TrainingProgress.bar`: the env steps of an epoch's
rollouts and updates, the episodes of an evaluation) and report every finished epoch
(:meth:`TrainingProgress.epoch_done`). Bars are drawn with tqdm, only when the console is a
terminal, and straight to the terminal (not into the run's ``maze_cli.log``); they show the
env steps done, the rate and the time left to the end of the epoch. The epoch line is a log
record of ``maze.train.progress`` (see :mod:`maze.env.utils.library_output`), in every mode but ``off``.

Modes (``runner.progress``): ``auto`` (bars on a terminal), ``bar`` (bars even when the
output is no terminal), ``epoch`` (only the epoch lines) and ``off`` (quiet).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, Optional, TextIO

from maze.env.errors import ConfigurationError
from tqdm import tqdm

logger = logging.getLogger(__name__)

__all__ = ["PROGRESS_MODES", "TrainingProgress"]

PROGRESS_MODES = ("auto", "bar", "epoch", "off")
"""The values of ``runner.progress``."""


class TrainingProgress:
    """Shows a training run's progress (see the module docs).

    Args:
        mode: One of :data:`PROGRESS_MODES`.
        stream: Where bars go (default: the console behind ``sys.stderr``).
    """

    def __init__(self, mode: str = "auto", stream: TextIO | None = None) -> None:
        if mode not in PROGRESS_MODES:
            raise ConfigurationError(f"runner.progress={mode!r} is not one of {list(PROGRESS_MODES)}")
        self.mode = mode
        self.stream = stream

    def _console(self) -> TextIO:
        """The terminal stream: ``stream``, else stderr without the job log's tee (bars stay out of the log)."""
        if self.stream is not None:
            return self.stream
        return getattr(sys.stderr, "console", sys.stderr)

    @property
    def live(self) -> bool:
        """Whether bars are drawn."""
        if self.mode == "bar":
            return True
        if self.mode != "auto":
            return False
        console = self._console()
        return bool(getattr(console, "isatty", lambda: False)())

    def bar(self, description: str, total: int, unit: str) -> Any:
        """A tqdm bar (a no-op one unless :attr:`live`); call ``update(n)``, ``set_postfix_str`` and ``close()``.

        Args:
            description: Shown before the bar, e.g. ``epoch 3``.
            total: Units of the whole phase (the ETA counts down to it).
            unit: What is counted, e.g. ``env steps``.
        """
        console = self._console()
        sized = _columns(console) > 0  # a terminal that reports no size gets a fixed width
        return tqdm(
            total=total,
            desc=description,
            unit=f" {unit}",
            unit_scale=True,
            file=console,
            disable=not self.live,
            leave=False,
            dynamic_ncols=sized,
            ncols=None if sized else 100,
            mininterval=0.25,
        )

    def epoch_done(self, epoch: int, env_steps: int, sub_steps: Optional[int], seconds: float) -> None:
        """Logs the epoch's line (not with ``off``): env steps, sub-steps and rate.

        Args:
            epoch: The finished epoch (0-based).
            env_steps: Env steps collected in the epoch (all envs).
            sub_steps: Sub-steps collected in the epoch (env steps times the sub-steps per env step;
                None: not counted, the line leaves them out).
            seconds: Seconds the epoch's rollouts and updates took.
        """
        if self.mode == "off":
            return
        rate = env_steps / seconds if seconds > 0 else 0.0
        counted = "" if sub_steps is None else f" ({sub_steps} sub-steps)"
        logger.info(f"epoch {epoch}: {env_steps} env steps{counted} in {seconds:.1f}s, {rate:.0f} env steps/s")


def _columns(stream: TextIO) -> int:
    """The terminal width of ``stream`` (0 when unknown)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 0
