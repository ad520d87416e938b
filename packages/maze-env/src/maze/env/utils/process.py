"""Process: a :class:`multiprocessing.Process` that brings the child's return value or exception back.

::

    process = Process(target=compute, args=(3,))
    process.start()
    value = process.get()  # compute(3), or the child's exception raised here

A plain ``multiprocessing.Process`` drops the target's return value and prints the
child's exception to the child's stderr, so the parent only sees an exit code. This
subclass sends the outcome through a pipe: after :meth:`Process.join`, ``result`` holds
the return value, ``exception`` the exception the target raised (or a
:class:`ChildProcessError` when the child died without reporting, e.g. killed) and
``traceback`` the child's formatted traceback. Return values and exceptions must pickle;
one that does not is reported as a :class:`ChildProcessError` naming it.
"""

from __future__ import annotations

import multiprocessing
import pickle
import time
import traceback as traceback_module
from collections.abc import Callable, Iterable, Mapping
from multiprocessing.connection import wait
from typing import Any, Optional

__all__ = ["Process"]

_NOT_DONE = object()


class Process(multiprocessing.Process):
    """A process running ``target(*args, **kwargs)`` whose return value or exception reaches the parent.

    Args:
        target: The callable to run in the child (with the ``spawn`` start method it must pickle).
        args: Positional arguments of ``target``.
        kwargs: Keyword arguments of ``target``.
        name: The process name.
        daemon: Daemon flag (None: inherited from the creating process).
    """

    def __init__(
        self,
        target: Optional[Callable[..., Any]] = None,
        args: Iterable[Any] = (),
        kwargs: Optional[Mapping[str, Any]] = None,
        name: Optional[str] = None,
        daemon: Optional[bool] = None,
    ) -> None:
        super().__init__(target=target, name=name, args=tuple(args), kwargs=dict(kwargs or {}), daemon=daemon)
        self._receiver, self._sender = multiprocessing.Pipe(duplex=False)
        self._outcome: Any = _NOT_DONE

    def run(self) -> None:
        """Runs the target in the child and sends ``(value, None, None)`` or ``(None, exception, traceback)``."""
        try:
            outcome: tuple[Any, Optional[BaseException], Optional[str]] = (self._run_target(), None, None)
        except BaseException as error:  # noqa: BLE001 - every failure of the target goes to the parent
            outcome = (None, error, traceback_module.format_exc())
        try:
            self._sender.send(outcome)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            what = "exception" if outcome[1] is not None else "return value"
            unpicklable = outcome[1] if outcome[1] is not None else outcome[0]
            problem = ChildProcessError(f"the child's {what} {unpicklable!r} cannot be sent to the parent: {error}")
            self._sender.send((None, problem, outcome[2] or traceback_module.format_exc()))
        finally:
            self._sender.close()

    def _run_target(self) -> Any:
        if self._target is None:  # type: ignore[attr-defined]
            return None
        return self._target(*self._args, **self._kwargs)  # type: ignore[attr-defined]

    def start(self) -> None:
        """Starts the child (the parent then closes its copy of the sending end)."""
        super().start()
        self._sender.close()

    def join(self, timeout: Optional[float] = None) -> None:
        """Waits for the outcome and the end of the child (at most ``timeout`` seconds)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if self._outcome is _NOT_DONE:
            ready = wait([self._receiver, self.sentinel], timeout)
            if self._receiver in ready:
                try:
                    self._outcome = self._receiver.recv()
                except EOFError:  # the child ended without sending
                    pass
        super().join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        if self._outcome is _NOT_DONE and self.exitcode is not None:
            self._outcome = (
                None,
                ChildProcessError(f"process {self.name} exited with code {self.exitcode} without reporting a result"),
                None,
            )

    @property
    def done(self) -> bool:
        """The child has ended and its outcome was received (by :meth:`join`)."""
        return self._outcome is not _NOT_DONE

    @property
    def result(self) -> Any:
        """The target's return value (None if it raised)."""
        return self._checked_outcome()[0]

    @property
    def exception(self) -> Optional[BaseException]:
        """The exception the target raised, a ChildProcessError if the child died silently, else None."""
        return self._checked_outcome()[1]

    @property
    def traceback(self) -> Optional[str]:
        """The child's formatted traceback of :attr:`exception` (None without one)."""
        return self._checked_outcome()[2]

    def get(self, timeout: Optional[float] = None) -> Any:
        """Joins the child and returns the target's return value, or raises its exception.

        Raises:
            TimeoutError: The child did not end within ``timeout`` seconds.
            BaseException: The child's exception; its ``__cause__`` is a ChildProcessError
                holding the child's traceback.
        """
        self.join(timeout)
        if not self.done:
            raise TimeoutError(f"process {self.name} did not end within {timeout} s")
        if self.exception is not None:
            cause = ChildProcessError(f"in process {self.name}:\n{self.traceback or '(no traceback)'}")
            raise self.exception from cause
        return self.result

    def _checked_outcome(self) -> tuple[Any, Optional[BaseException], Optional[str]]:
        if self._outcome is _NOT_DONE:
            raise RuntimeError(f"process {self.name} has no outcome yet; call join() first")
        return self._outcome
