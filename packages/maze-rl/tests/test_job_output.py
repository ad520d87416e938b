"""Everything a job prints also lands in maze_cli.log."""

from __future__ import annotations

import io
import logging
import sys
from pathlib import Path

from maze.rl.job_output import JOB_LOG_FILE, TeeStream, tee_output_to_job_log


def test_tee_stream_writes_to_console_and_sink() -> None:
    console, copied = io.StringIO(), []
    stream = TeeStream(console, copied.append)
    assert stream.write("table\n") == len("table\n")
    stream.flush()
    assert console.getvalue() == "table\n" and copied == ["table\n"]
    assert stream.getvalue() == "table\n"  # everything else is the console's


def test_printed_text_and_log_records_share_the_job_log_file_in_order(tmp_path: Path) -> None:
    handler = logging.FileHandler(tmp_path / JOB_LOG_FILE)
    handler.setFormatter(logging.Formatter("[LOG] %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    try:
        with tee_output_to_job_log(str(tmp_path)):
            print("first printed")
            logging.getLogger("job").info("a record")
            print("to stderr", file=sys.stderr)
        print("after the job")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
    assert (tmp_path / JOB_LOG_FILE).read_text() == "first printed\n[LOG] a record\nto stderr\n"


def test_without_a_log_handler_the_file_is_appended_to(tmp_path: Path, capsys) -> None:
    (tmp_path / JOB_LOG_FILE).write_text("earlier\n")
    with tee_output_to_job_log(str(tmp_path)):
        print("printed")
    assert (tmp_path / JOB_LOG_FILE).read_text() == "earlier\nprinted\n"
    assert capsys.readouterr().out == "printed\n"


def test_a_failing_sink_is_dropped_with_one_note_and_never_masks_the_output() -> None:
    console, calls = io.StringIO(), []

    def full_disk(text: str) -> None:
        calls.append(text)
        raise OSError(28, "No space left on device")

    stream = TeeStream(console, full_disk)
    stream.write("Error: the real problem\n")
    stream.write("more\n")
    assert console.getvalue().startswith("Error: the real problem\n")
    assert console.getvalue().count("maze_cli.log can no longer be written") == 1
    assert console.getvalue().endswith("more\n") and len(calls) == 1
