"""maze.env.utils.library_output: library lines as log records, shown on stdout unless the application routes them.

What a fresh process does runs in a subprocess: pytest puts its own handlers on the loggers of this one.
"""

from __future__ import annotations

import io
import logging
import subprocess
import sys
from contextlib import redirect_stdout

from maze.env.utils.library_output import LIBRARY_LOGGER, StdoutHandler, show_library_output

WRITE_A_TABLE = """
from maze.env.log_stats.log_stats import LogStatsKey
from maze.env.log_stats.writers import LogStatsWriterConsole
LogStatsWriterConsole().write("main", 1, {LogStatsKey("BaseEnvEvents", "reward", "total_step_count"): 15.0})
"""
"""A console writer's table, written in a fresh process."""


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)


def test_lines_go_to_the_stdout_of_the_moment_as_plain_text() -> None:
    show_library_output(force=True)  # shown already (the conftest): nothing is added
    library = logging.getLogger(LIBRARY_LOGGER)
    assert sum(isinstance(handler, StdoutHandler) for handler in library.handlers) == 1
    first, second = io.StringIO(), io.StringIO()
    with redirect_stdout(first):
        logging.getLogger("maze.train.progress").info("epoch 0: 10 env steps")
    with redirect_stdout(second):  # looked up per record: maze-run's tee and pytest's capture get the lines
        logging.getLogger("maze.env").warning("Warning: something")
    assert first.getvalue() == "epoch 0: 10 env steps\n"
    assert second.getvalue() == "Warning: something\n"


def test_a_fresh_process_shows_the_console_writers_table_on_stdout() -> None:
    result = _run(WRITE_A_TABLE)
    assert "BaseEnvEvents" in result.stdout and "15.000" in result.stdout
    assert result.stderr == ""


def test_an_application_with_its_own_logging_keeps_control() -> None:
    routed = _run(
        "import logging, sys; logging.basicConfig(stream=sys.stderr, format='app: %(message)s')" + WRITE_A_TABLE
    )
    assert routed.stdout == "" and routed.stderr == ""  # its root logger shows warnings only; the table is INFO
    shown = _run(
        "import logging, sys; logging.basicConfig(stream=sys.stderr, level=logging.INFO, format='app: %(message)s')"
        + WRITE_A_TABLE
    )
    assert shown.stdout == "" and "app:  step|path" in shown.stderr  # through the application's handler
    silenced = _run("import logging; logging.getLogger('maze').setLevel(logging.WARNING)" + WRITE_A_TABLE)
    assert silenced.stdout == ""  # shown on stdout, but the application's level is kept
