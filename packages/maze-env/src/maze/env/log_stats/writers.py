"""Statistics writers: the writer interface, the console table and a text-file copy of it.

The console table (one block per ``write`` call)::

     step|path                                                                        |               value
    =====|============================================================================|====================
       12|train     DiscreteActionEvents  action                substep_0/piece_idx   | [len:8000, μ:169.2]
       12|train     BaseEnvEvents         reward                mean                  |            -186.450
       12|train     BaseEnvEvents         kpi                   max/raw_piece_usage_..|               0.135

* ``step``: the log step, right-aligned in 5 characters.
* ``path``: the logging prefix, padded to ``max(10, len(prefix) + 2)`` characters, then the
  topic class, the event and the statistic's label (name and group values joined by
  ``/``), each in a 22-character column: shorter tokens are padded, longer ones cut to 20
  characters plus ``..``. An empty label column is filled with ``·``.
* ``value``: right-aligned in 20 characters; numbers with 3 decimals (non-zero magnitudes
  below 0.01 in scientific format, e.g. ``2.500e-04``, so small values keep their digits), lists and arrays as
  ``[len:N, μ:X]`` (X: the mean of all entries, 1 decimal; ``[len:N]`` when the entries
  are no numbers), anything else as ``str``.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from numbers import Number
from pathlib import Path
from typing import Optional, Union

import numpy as np
from maze.env.log_stats.log_stats import LogStats, LogStatsValue
from maze.env.utils.library_output import show_library_output

logger = logging.getLogger(__name__)

__all__ = [
    "LogStatsWriter",
    "LogStatsWriterConsole",
    "LogStatsWriterFile",
    "format_stats_table",
    "format_stats_value",
]

_COLUMN = 22
"""Width of the topic, event and label columns (20 characters of text plus 2 of padding)."""

_VALUE_WIDTH = 20

SCIENTIFIC_BELOW = 0.01
"""Non-zero numbers smaller than this in magnitude are shown in scientific format (``2.500e-04``)."""
_MIN_PREFIX_WIDTH = 10


class LogStatsWriter(ABC):
    """Receives statistics to write (console, file, TensorBoard, ...)."""

    @abstractmethod
    def write(self, path: Optional[str], step: int, stats: LogStats) -> None:
        """Writes ``stats`` under the logging prefix ``path`` (None: no prefix) at log step ``step``."""

    def close(self) -> None:  # noqa: B027 - an optional hook: most writers hold no resources
        """Releases the writer's resources (nothing by default)."""


def format_stats_value(value: LogStatsValue) -> str:
    """A statistic as the console shows it: ``-0.016``, ``2.500e-04``, ``[len:15, μ:82.3]`` or ``str(value)``."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (Number, np.number)) or (isinstance(value, np.ndarray) and value.ndim == 0):
        number = float(value)
        if number != 0 and abs(number) < SCIENTIFIC_BELOW:  # keep the significant digits of small values
            return f"{number:.3e}"
        return f"{number:.3f}"
    if isinstance(value, (list, tuple, np.ndarray)):
        try:
            flat = np.concatenate([np.ravel(np.asarray(entry, dtype=np.float64)) for entry in value] or [np.zeros(0)])
        except (TypeError, ValueError):  # entries that are no numbers (e.g. attribute dicts)
            return f"[len:{len(value)}]"
        mean = float(np.mean(flat)) if flat.size else float("nan")
        return f"[len:{len(value)}, μ:{mean:.1f}]"
    return str(value)


def _column(token: str) -> str:
    if not token:
        return "·" * _COLUMN
    if len(token) > _COLUMN - 2:
        return token[: _COLUMN - 2] + ".."
    return token.ljust(_COLUMN)


def format_stats_table(path: Optional[str], step: int, stats: LogStats) -> list[str]:
    """The lines of one console table block: header, rule and one row per statistic."""
    prefix = "" if path is None else path.ljust(max(_MIN_PREFIX_WIDTH, len(path) + 2))
    width = len(prefix) + 3 * _COLUMN
    lines = [
        f" step|{'path'.ljust(width)}|{'value'.rjust(_VALUE_WIDTH)}",
        f"{'=' * 5}|{'=' * width}|{'=' * _VALUE_WIDTH}",
    ]
    for key, value in stats.items():
        columns = _column(key.topic) + _column(key.event) + _column(key.label)
        lines.append(f"{step:>5}|{prefix}{columns}|{format_stats_value(value).rjust(_VALUE_WIDTH)}")
    return lines


class LogStatsWriterConsole(LogStatsWriter):
    """Shows every write as a table block on stdout (format: see the module docs).

    The blocks are log records of ``maze.env.log_stats.writers``: a new console writer shows maze's
    library lines on stdout unless the application configured logging (see
    :func:`~maze.env.utils.library_output.show_library_output`).
    """

    def __init__(self) -> None:
        show_library_output()

    def write(self, path: Optional[str], step: int, stats: LogStats) -> None:
        """Shows the table of ``stats`` (nothing when empty)."""
        if stats:
            logger.info("\n".join(format_stats_table(path, step, stats)))


class LogStatsWriterFile(LogStatsWriter):
    """Appends every write as a table block (the console format) to ``<log_dir>/<file_name>``.

    Args:
        log_dir: Directory of the file (created when missing).
        file_name: Name of the text file.
    """

    def __init__(self, log_dir: Union[str, Path], file_name: str = "log_stats.txt") -> None:
        self.path = Path(log_dir) / file_name
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def write(self, path: Optional[str], step: int, stats: LogStats) -> None:
        """Appends the table of ``stats`` (nothing when empty)."""
        if stats:
            with self.path.open("a", encoding="utf-8") as file:
                file.write("\n".join(format_stats_table(path, step, stats)) + "\n")
