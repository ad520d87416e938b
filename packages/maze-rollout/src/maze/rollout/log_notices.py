"""Drops single third-party log lines that are notices, not problems, so that a healthy run prints no warning.

Each filter drops exactly the records of one logger whose message contains a fragment; all
other lines of that logger still print. Callers name the notice and say in a comment why it
is no problem for maze (e.g. :meth:`maze.rollout.ray_cluster.RayCluster.connected`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["dropped_log_notice", "drop_log_notice"]


class _DropNotice(logging.Filter):
    """Drops the records whose message contains ``fragment``."""

    def __init__(self, fragment: str) -> None:
        super().__init__()
        self.fragment = fragment

    def filter(self, record: logging.LogRecord) -> bool:
        """False (dropped) for the notice, True for every other record."""
        return self.fragment not in record.getMessage()


def drop_log_notice(logger_name: str, fragment: str) -> None:
    """Drops the notice of ``logger_name`` containing ``fragment`` from now on in this process (added once)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(known, _DropNotice) and known.fragment == fragment for known in logger.filters):
        logger.addFilter(_DropNotice(fragment))


@contextmanager
def dropped_log_notice(logger_name: str, fragment: str) -> Iterator[None]:
    """Drops the notice of ``logger_name`` containing ``fragment`` while the block runs."""
    logger = logging.getLogger(logger_name)
    notice_filter = _DropNotice(fragment)
    logger.addFilter(notice_filter)
    try:
        yield
    finally:
        logger.removeFilter(notice_filter)
