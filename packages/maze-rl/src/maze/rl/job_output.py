"""Copy everything a ``maze-run`` job prints into its log file ``maze_cli.log``.

Hydra's job logging writes log records to the run directory's log file; statistics tables
and other console output are printed with ``print``. While :func:`tee_output_to_job_log`
is active, ``sys.stdout`` and ``sys.stderr`` write to the console and to that same file.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any, Optional, TextIO

__all__ = ["JOB_LOG_FILE", "TeeStream", "tee_output_to_job_log"]

JOB_LOG_FILE = "maze_cli.log"
"""Name of the log file in every run directory."""


class TeeStream(io.TextIOBase):
    """A text stream that writes to a console stream and passes the same text to a sink.

    Everything but writing (``encoding``, ``fileno``, ``isatty``, ...) is the console's.

    Args:
        console: The stream that stays visible (the original ``sys.stdout`` or ``sys.stderr``).
        sink: Called with every written text (dropped after its first failure).
    """

    def __init__(self, console: TextIO, sink: Callable[[str], None]) -> None:
        super().__init__()
        self.console = console
        self.sink: Optional[Callable[[str], None]] = sink

    def write(self, text: str) -> int:
        """Writes ``text`` to the console and the sink.

        If the sink fails (e.g. the disk is full), it is dropped with one note on the console
        and the output goes on: a log file must never hide the error being reported.
        """
        written = self.console.write(text)
        if self.sink is not None:
            try:
                self.sink(text)
            except Exception as error:
                self.sink = None
                self.console.write(f"\nNote: {JOB_LOG_FILE} can no longer be written ({error}); console output only\n")
        return written

    def flush(self) -> None:
        """Flushes the console."""
        self.console.flush()

    def isatty(self) -> bool:
        """Whether the console is a terminal."""
        return self.console.isatty()

    def fileno(self) -> int:
        """The console's file descriptor."""
        return self.console.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        """The console's encoding."""
        return getattr(self.console, "encoding", "utf-8")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)


@contextlib.contextmanager
def tee_output_to_job_log(run_dir: str) -> Iterator[None]:
    """Copies ``sys.stdout`` and ``sys.stderr`` into ``<run_dir>/maze_cli.log`` while active.

    Text goes through the job-logging file handler of that file when one is configured (so
    log records and printed text stay in order), else the file is opened for appending.

    Args:
        run_dir: The run directory.
    """
    path = os.path.abspath(os.path.join(run_dir, JOB_LOG_FILE))
    handler = _file_handler(path)
    with contextlib.ExitStack() as stack:
        if handler is not None:
            sink = _handler_sink(handler)
        else:
            log_file = stack.enter_context(open(path, "a", encoding="utf-8"))
            sink = _file_sink(log_file)
        stack.enter_context(contextlib.redirect_stdout(TeeStream(sys.stdout, sink)))
        stack.enter_context(contextlib.redirect_stderr(TeeStream(sys.stderr, sink)))
        yield


def _file_handler(path: str) -> logging.FileHandler | None:
    """The root logger's file handler that writes to ``path`` and has an open stream, if any."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler) and handler.baseFilename == path and handler.stream is not None:
            return handler
    return None


def _handler_sink(handler: logging.FileHandler) -> Callable[[str], None]:
    def sink(text: str) -> None:
        with handler.lock:
            handler.stream.write(text)
            handler.stream.flush()

    return sink


def _file_sink(log_file: TextIO) -> Callable[[str], None]:
    def sink(text: str) -> None:
        log_file.write(text)
        log_file.flush()

    return sink
