"""Timeout interrupts a block after its seconds; Process brings the child's return value and exception back."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest
from maze.env.errors import ConfigurationError
from maze.env.utils.process import Process
from maze.env.utils.timeout import Timeout


def test_timeout_interrupts_a_block_that_runs_too_long() -> None:
    start = time.monotonic()
    with pytest.raises(TimeoutError, match="after 0.05 s"):
        with Timeout(0.05):
            time.sleep(2)
    assert time.monotonic() - start < 1.0


def test_timeout_lets_a_quick_block_finish_and_disarms_the_timer() -> None:
    with Timeout(0.2):
        value = sum(range(100))
    time.sleep(0.3)  # a timer left armed would fire here
    assert value == 4950


def test_an_outer_timeout_keeps_running_through_an_inner_one() -> None:
    with pytest.raises(TimeoutError, match="outer"):
        with Timeout(0.3, message="outer"):
            with Timeout(5, message="inner"):
                time.sleep(0.05)
            time.sleep(2)


def test_timeout_rejects_non_positive_seconds_and_other_threads() -> None:
    with pytest.raises(ConfigurationError, match="positive"):
        Timeout(0)
    errors: list[BaseException] = []

    def enter() -> None:
        try:
            with Timeout(1):
                pass
        except RuntimeError as error:
            errors.append(error)

    thread = threading.Thread(target=enter)
    thread.start()
    thread.join()
    assert len(errors) == 1 and "main thread" in str(errors[0])


def _square(value: int) -> int:
    return value * value


def _fail(message: str) -> None:
    raise KeyError(message)


def _unpicklable_result() -> object:
    return lambda: None


def test_process_returns_the_targets_value() -> None:
    process = Process(target=_square, args=(7,))
    process.start()
    assert process.get(timeout=60) == 49
    assert process.exception is None and process.traceback is None and process.exitcode == 0


def test_process_works_with_the_spawn_start_method() -> None:
    script = (
        "import multiprocessing, operator\n"
        "from maze.env.utils.process import Process\n"
        "if __name__ == '__main__':\n"
        "    multiprocessing.set_start_method('spawn')\n"
        "    process = Process(target=operator.mul, args=(6, 7))\n"
        "    process.start()\n"
        "    print(process.get(timeout=60))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "42"


def test_process_carries_the_childs_exception_and_traceback() -> None:
    process = Process(target=_fail, kwargs={"message": "broken"})
    process.start()
    process.join()
    assert isinstance(process.exception, KeyError) and process.result is None
    assert "_fail" in process.traceback and "KeyError: 'broken'" in process.traceback
    with pytest.raises(KeyError, match="broken") as raised:
        process.get()
    assert "_fail" in str(raised.value.__cause__)


def test_process_reports_a_child_that_died_without_a_result() -> None:
    process = Process(target=os._exit, args=(3,))
    process.start()
    process.join()
    assert isinstance(process.exception, ChildProcessError) and "exited with code 3" in str(process.exception)


def test_process_reports_a_return_value_that_cannot_be_sent() -> None:
    process = Process(target=_unpicklable_result)
    process.start()
    with pytest.raises(ChildProcessError, match="return value"):
        process.get(timeout=60)


def test_process_outcome_needs_a_join_first() -> None:
    process = Process(target=_square, args=(2,))
    with pytest.raises(RuntimeError, match="join"):
        _ = process.result
