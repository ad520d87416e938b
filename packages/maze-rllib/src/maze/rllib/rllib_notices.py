"""Drops two of RLlib's warning-level log lines that every maze-rllib run would print although nothing is wrong.

* ``You are running <algorithm> on the new API stack! This is the new default behavior ...``:
  RLlib logs it for every algorithm on its new API stack, which is the stack maze-rllib is
  built on (its RLModules and env runners), so it reports maze's intended setting.
* ``RLModule(config=[RLModuleConfig object])`` has been deprecated: RLlib's own
  ``RLModule.__init__`` builds the deprecated ``RLModuleConfig`` for every module, whichever
  way the module was constructed; maze builds its modules from ``RLModuleSpec`` with the
  current keyword arguments.

Only these two lines are dropped (:func:`maze.rollout.log_notices.drop_log_notice`); the filters
are installed when ``maze.rllib`` is imported, in the driver and in every RLlib actor that
unpickles maze-rllib's env or module.
"""

from __future__ import annotations

from maze.rollout.log_notices import drop_log_notice

__all__ = ["RLLIB_NOTICES", "install_notice_filters"]

RLLIB_NOTICES = {
    "ray.rllib.algorithms.algorithm_config": "on the new API stack! This is the new default behavior",
    "ray._common.deprecation": "`RLModule(config=[RLModuleConfig object])` has been deprecated",
}
"""Logger name -> a fragment of the one notice of that logger that is dropped."""


def install_notice_filters() -> None:
    """Drops the notices of :data:`RLLIB_NOTICES` in this process (once per process)."""
    for logger_name, fragment in RLLIB_NOTICES.items():
        drop_log_notice(logger_name, fragment)
