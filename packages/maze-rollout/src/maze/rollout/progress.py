"""A quiet progress display for long rollouts: at most one line per tenth of the episodes."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Optional

logger = logging.getLogger(__name__)

__all__ = ["RolloutProgress"]


class RolloutProgress:
    """Reports the progress of a rollout (log lines of ``maze.rollout.progress``), one line per 10 % of the episodes.

    Short rollouts stay silent: milestones reached within the first ``quiet_seconds``
    are not printed. A line reads::

        rollout: 40/100 episodes (40%), 61,204 steps/s, 2.9 episodes/s, ETA 0:00:21

    Rates and the ETA count only the time spent rolling out: the runners bracket the
    start-up of their workers (processes, env and policy building) with
    :meth:`begin_startup` and :meth:`end_startup`, and the summary shows it separately.
    Time counts from construction until :meth:`begin_startup` is called.

    Args:
        n_episodes: Episodes of the whole rollout.
        quiet_seconds: Milestones reached earlier than this after the start are not printed.
        clock: Seconds since an arbitrary origin (for tests).
        output: Receives each line (default: this module's logger, level INFO).
    """

    def __init__(
        self,
        n_episodes: int,
        quiet_seconds: float = 2.0,
        clock: Callable[[], float] = time.perf_counter,
        output: Callable[[str], None] = logger.info,
    ) -> None:
        self.n_episodes = n_episodes
        self.quiet_seconds = quiet_seconds
        self.clock = clock
        self.output = output
        self.start = clock()
        self.episodes = 0
        self.steps = 0
        self.startup_seconds = 0.0
        """Seconds spent in start-up so far (excluded from rates and the ETA)."""
        self._startup_since: Optional[float] = None
        self._milestone = 0

    def begin_startup(self) -> None:
        """Stops counting time for the rates: workers are being started (no effect during a start-up)."""
        if self._startup_since is None:
            self._startup_since = self.clock()

    def end_startup(self) -> None:
        """Counts time for the rates again: the first worker is ready (no effect outside a start-up)."""
        if self._startup_since is not None:
            self.startup_seconds += self.clock() - self._startup_since
            self._startup_since = None

    def update(self, episodes: int, steps: int) -> None:
        """Adds finished episodes and their steps; prints a line when a new tenth is reached.

        Finished episodes end a start-up still open (their worker is evidently running).

        Args:
            episodes: Episodes finished since the last update.
            steps: Env steps of those episodes.
        """
        self.end_startup()
        self.episodes += episodes
        self.steps += steps
        milestone = self.episodes * 10 // self.n_episodes
        if milestone <= self._milestone:
            return
        self._milestone = milestone
        elapsed = self.rollout_seconds()
        if elapsed >= self.quiet_seconds and self.episodes < self.n_episodes:
            eta = elapsed / self.episodes * (self.n_episodes - self.episodes)
            self.output(
                f"rollout: {self.episodes}/{self.n_episodes} episodes ({100 * self.episodes // self.n_episodes}%), "
                f"{self.steps / elapsed:,.0f} steps/s, {self.episodes / elapsed:,.1f} episodes/s, "
                f"ETA {_clock_time(eta)}"
            )

    def rollout_seconds(self) -> float:
        """Seconds since construction without the start-ups (at least 1e-9)."""
        now = self.clock()
        startup = self.startup_seconds + (0.0 if self._startup_since is None else now - self._startup_since)
        return max(now - self.start - startup, 1e-9)

    def summary(self) -> str:
        """One line on the whole rollout so far: episodes, steps, time and rates (and the start-up, if any)."""
        elapsed = self.rollout_seconds()
        startup = f" after {self.startup_seconds:.1f} s of start-up" if self.startup_seconds > 0 else ""
        return (
            f"rollout: {self.episodes} episode{'' if self.episodes == 1 else 's'}, {self.steps:,} steps in {elapsed:.1f} s "
            f"({self.steps / elapsed:,.0f} steps/s, {self.episodes / elapsed:,.1f} episodes/s){startup}"
        )


def _clock_time(seconds: float) -> str:
    """``h:mm:ss`` of a duration (rounded up to whole seconds)."""
    total = int(-(-seconds // 1))
    return f"{total // 3600}:{total // 60 % 60:02d}:{total % 60:02d}"
