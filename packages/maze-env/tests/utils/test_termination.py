"""The SIGTERM record: raised again by the epoch loops' check until the handler is removed."""

from __future__ import annotations

import pytest
from maze.env.utils.termination import Terminated, clear_sigterm, raise_lost_sigterm, record_sigterm


def test_a_recorded_sigterm_is_raised_by_every_check_until_it_is_cleared() -> None:
    raise_lost_sigterm()  # nothing recorded: the check passes
    record_sigterm()
    try:
        for _ in range(2):
            with pytest.raises(Terminated):
                raise_lost_sigterm()
    finally:
        clear_sigterm()
    raise_lost_sigterm()
    assert issubclass(Terminated, KeyboardInterrupt)  # handled wherever Ctrl-C is
