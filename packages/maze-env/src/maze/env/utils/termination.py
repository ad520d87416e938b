"""SIGTERM ends a training job like Ctrl-C, also where Python loses the exception it raised.

``maze-run`` handles SIGTERM (``kill``, a job scheduler, a container stop) by raising
:class:`Terminated` wherever the main thread is, as Ctrl-C raises ``KeyboardInterrupt``. Python
loses an exception raised in a few places: inside a finalizer (``__del__``, a weakref callback;
Python prints "Exception ignored in ...") and inside Python code that C code calls and whose
errors it clears (``PyObject_HasAttr`` and ``PyDict_GetItem`` do). A SIGTERM that lands there
would leave the job training on to its end and exiting 0 (what one CI run's SIGTERM test saw).

So the handler also records the signal (:func:`record_sigterm`), and the trainers' epoch loops
(maze-train) call :func:`raise_lost_sigterm` before every epoch: a recorded SIGTERM that has not
ended the job ends it there, after the last epoch's checkpoint was written. Nothing is recorded
outside ``maze-run``'s handler (a notebook, a test), so the check costs one flag read per epoch.

It lives in maze-env, beside the other signal helper (:mod:`maze.env.utils.timeout`), because
``maze-run`` installs the handler before it knows the job and ``maze-run --help`` must not import
maze-train (start-up time); maze-env is imported by then anyway.
"""

from __future__ import annotations

__all__ = ["Terminated", "clear_sigterm", "raise_lost_sigterm", "record_sigterm"]

_received = False
"""A SIGTERM arrived while ``maze-run``'s handler was installed (cleared when it is removed)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM reached ``maze-run``: raised where Ctrl-C raises KeyboardInterrupt, and handled the same way."""


def record_sigterm() -> None:
    """Records that SIGTERM arrived (called by the signal handler before it raises :class:`Terminated`)."""
    global _received
    _received = True


def clear_sigterm() -> None:
    """Forgets a recorded SIGTERM (when the handler is removed: the job has ended)."""
    global _received
    _received = False


def raise_lost_sigterm() -> None:
    """Raises :class:`Terminated` if a SIGTERM was recorded (its own exception was lost, else the job would have ended).

    Raises:
        Terminated: A SIGTERM arrived while the job ran.
    """
    if _received:
        raise Terminated()
