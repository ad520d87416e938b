"""Library output: maze's packages report through :mod:`logging`, under the logger ``maze``.

Progress lines, notes, warnings and the statistics tables of the libraries are log records of
``maze.<module>`` loggers, never ``print`` calls. So an application embedding maze decides what
it sees with plain logging, e.g. ``logging.getLogger("maze").setLevel(logging.WARNING)`` keeps
only the warnings, and its own handlers get the records like any other library's.

Where maze is the application, the lines appear on stdout as plain text, exactly as printed
lines would: ``maze-run`` configures this in its job logging (the ``maze`` logger of
``conf/hydra/job_logging/maze.yaml``), ``RunContext`` calls :func:`show_library_output` and
the test suites call it with ``force=True``.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

__all__ = ["LIBRARY_LOGGER", "StdoutHandler", "show_library_output"]

LIBRARY_LOGGER = "maze"
"""The parent logger of every maze module's logger (``logging.getLogger(__name__)`` in ``maze.*``)."""


class StdoutHandler(logging.StreamHandler):
    """Writes each record's message as a plain line to the ``sys.stdout`` of the moment it is written.

    Looking ``sys.stdout`` up per record (not once, at construction) keeps the lines where printed
    text goes: into ``maze-run``'s copy of the console in ``maze_cli.log`` and into pytest's capture.
    """

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("%(message)s"))

    @property
    def stream(self) -> TextIO:  # type: ignore[override]
        """The current ``sys.stdout``."""
        return sys.stdout

    @stream.setter
    def stream(self, _ignored: TextIO) -> None:
        """Ignored: the stream is always the current ``sys.stdout``."""


def show_library_output(level: int = logging.INFO, force: bool = False) -> None:
    """Shows maze's library lines (``level`` and above) on stdout as plain text, as ``maze-run`` does.

    Does nothing when the lines are shown already, or when the application has configured logging
    (a handler on the root or the ``maze`` logger): its configuration decides where they go. A level the application set
    on the ``maze`` logger is kept. The records do not also propagate to the root logger's
    handlers, which would show every line a second time.

    Args:
        level: The lowest level shown when the ``maze`` logger has none set yet.
        force: Show the lines even when logging is configured (tests: pytest's capturing handlers
            sit on the root and the ``maze`` logger).
    """
    logger = logging.getLogger(LIBRARY_LOGGER)
    if any(isinstance(handler, StdoutHandler) for handler in logger.handlers):
        return
    if not force and (logger.handlers or logging.getLogger().handlers):
        return
    logger.addHandler(StdoutHandler())
    logger.propagate = False
    if logger.level == logging.NOTSET:
        logger.setLevel(level)
