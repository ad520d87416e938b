"""Fixtures of the maze-deploy tests: clean logging state and a registered recording stats writer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from deploy_test_support import RecordingWriter
from maze.env.log_stats.global_state import clear_global_state, register_log_stats_writer
from maze.env.utils.library_output import show_library_output

show_library_output(force=True)  # maze's library lines on stdout, as maze-run shows them (tests read them there)


@pytest.fixture(autouse=True)
def clean_log_state() -> Iterator[None]:
    """No stats writer or log step leaks between tests."""
    clear_global_state()
    yield
    clear_global_state()


@pytest.fixture
def recorder() -> RecordingWriter:
    """A registered RecordingWriter (unregistered by ``clean_log_state``)."""
    writer = RecordingWriter()
    register_log_stats_writer(writer)
    return writer
