"""What the training process and its tracking process exchange, and the run-id file they share.

Standard library only: the tracking process imports it before its tracking library.

The training process writes one JSON message per line to the tracking process's stdin:

* ``{"op": "connect", "settings": {...}}`` - sent when the process starts: import the
  library and open the store with the resolved ``logger`` settings;
* ``{"op": "start", "run": {...}, "artifacts": [...], "summary_file": "..."}`` - the
  :class:`~maze.train.tracking.run_info.TrackedRun`, the files to
  upload at the end (names or globs in the run directory) and the training summary's name;
* ``{"op": "metrics", "step": 8192, "epoch": 2, "time_ms": ..., "values": {"train_...": 1.5}}``;
* ``{"op": "finish", "status": "finished"}`` (or ``failed``, ``interrupted``).

The tracking process answers with one JSON event per line on its stdout; the only event is
``{"event": "error", "message": "..."}``, after which it drops everything but ``finish``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Union

__all__ = ["encode", "read_tracked_run_id", "tracked_run_file", "write_tracked_run_id"]


def encode(message: dict[str, Any]) -> bytes:
    """One message (or event) as a JSON line."""
    return (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")


def tracked_run_file(run_dir: Union[str, Path], backend: str) -> Path:
    """``<run_dir>/tracking_<backend>.json``: which run ``backend`` tracks for this run directory."""
    return Path(run_dir) / f"tracking_{backend}.json"


def write_tracked_run_id(run_dir: Union[str, Path], backend: str, run_id: str, **where: Any) -> None:
    """Records the tracked run of ``run_dir`` (``where``: e.g. the tracking URI, for people reading the file)."""
    text = json.dumps({"run_id": run_id, **where}, indent=2) + "\n"
    tracked_run_file(run_dir, backend).write_text(text, encoding="utf-8")


def read_tracked_run_id(run_dir: Union[str, Path], backend: str) -> Optional[str]:
    """The id of the run ``backend`` tracked for ``run_dir`` (None: not tracked by it, or unreadable).

    The run directory may come from elsewhere (``input_dir``): the file is read under the bounds
    of :mod:`maze.env.utils.untrusted_files`; one over them counts as unreadable.
    """
    from maze.env.utils.untrusted_files import load_untrusted_json  # the tracking process imports little

    path = tracked_run_file(run_dir, backend)
    try:
        return str(load_untrusted_json(path)["run_id"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
