"""The garbage collector during ``maze-run``'s start-up: off while the run's long-lived objects are made.

Start-up (importing torch and friends, composing the config, building envs and models)
creates about a million objects that live as long as the process. Python's cyclic garbage
collector runs every few hundred allocations and rescans them again and again: about 0.25 s
of a 1.1 s start-up on a 2-core machine, for no garbage found. So the ``maze-run`` console
entry pauses the collector, and the job resumes it once its runner is set up, after
``gc.freeze()`` has moved everything made so far into the permanent generation: collections
during training then scan only what training allocates, and forked children (graph drawing,
background evaluation, sweep jobs) do not copy those pages when a collection touches them.

Only ``maze-run`` pauses it; a Python process that runs maze itself (RunContext, scripts)
keeps its own collector settings.
"""

from __future__ import annotations

import gc

__all__ = ["pause_garbage_collection", "resume_garbage_collection"]

_paused = False


def pause_garbage_collection() -> None:
    """Turns the collector off until :func:`resume_garbage_collection` (if it is on)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_garbage_collection() -> None:
    """Freezes what exists and turns the collector back on, if :func:`pause_garbage_collection` turned it off."""
    global _paused
    if _paused:
        gc.freeze()
        gc.enable()
        _paused = False
