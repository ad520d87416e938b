"""Timeout: a ``with`` block that raises :class:`TimeoutError` once a number of seconds has passed.

::

    with Timeout(seconds=2):
        slow_call()  # interrupted with TimeoutError after 2 s

The alarm is the process's real-time interval timer (``SIGALRM``), so the block must run
in the main thread of a POSIX process, and it interrupts Python code (and blocking
system calls), not a long call inside a C extension until that returns to Python.
Blocks can be nested: an outer timer keeps running while an inner one is armed and is
re-armed with its remaining time when the inner block ends.
"""

from __future__ import annotations

import signal
import threading
import time
from types import FrameType, TracebackType
from typing import Optional

from maze.env.errors import ConfigurationError

__all__ = ["Timeout"]


class Timeout:
    """Context manager raising :class:`TimeoutError` in its block after ``seconds``.

    Args:
        seconds: Time limit of the block (positive; fractions allowed).
        message: Text of the TimeoutError (default: ``block timed out after <seconds> s``).

    Raises:
        ConfigurationError: ``seconds`` is not positive.
    """

    def __init__(self, seconds: float, message: Optional[str] = None) -> None:
        if not seconds > 0:
            raise ConfigurationError(f"Timeout needs a positive number of seconds, got {seconds!r}")
        self.seconds = float(seconds)
        self.message = message or f"block timed out after {self.seconds:g} s"
        self._previous_handler: object = None
        self._previous_timer: tuple[float, float] = (0.0, 0.0)
        self._started = 0.0

    def __enter__(self) -> Timeout:
        if not hasattr(signal, "SIGALRM"):
            raise RuntimeError("Timeout needs SIGALRM, which this platform lacks (it is POSIX only)")
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("Timeout works only in the main thread (signal handlers run there)")
        self._previous_handler = signal.signal(signal.SIGALRM, self._fire)
        self._started = time.monotonic()
        self._previous_timer = signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(
        self,
        exc_type: Optional[type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        # None: the previous handler was not installed from Python; fall back to the default
        signal.signal(signal.SIGALRM, self._previous_handler or signal.SIG_DFL)  # type: ignore[arg-type]
        outer_delay, outer_interval = self._previous_timer
        if outer_delay > 0:  # an enclosing timer was armed: give it back what is left of its time
            left = outer_delay - (time.monotonic() - self._started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), outer_interval)

    def _fire(self, signum: int, frame: Optional[FrameType]) -> None:
        raise TimeoutError(self.message)
