"""The open episodes of the service: one AgentDeployment each, open-episode limits, idle expiry, the episode log.

Open episodes live in this process only: a restart loses them (their ids then answer 404).
Each ended episode (closed, expired or failed) is appended to the episode log, if one is
configured, as one JSON line that is flushed before the request is answered — so a killed
process loses no ended episode.

Opening an episode takes two steps, so that building its deployment can run off the event
loop while the limits still hold however many opens arrive at once: :meth:`Episodes.reserve`
takes a place (or refuses), :meth:`Episodes.open` fills it with the built deployment, and
:meth:`Episodes.release` gives it back when building failed.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from maze.deploy import AgentDeployment

from .errors import ServiceError

__all__ = ["Episode", "Episodes"]

_ENDED_MEMORY = 100_000
"""How many ended episode ids the service remembers to tell 'closed' or 'expired' from 'unknown'."""


@dataclass
class Episode:
    """One open episode: its deployment and what it has seen so far."""

    episode_id: str
    deployment: AgentDeployment
    seed: Optional[int]
    client: str = "unknown"
    started_at: float = field(default_factory=time.time)
    last_used: float = field(default_factory=time.monotonic)
    steps: int = 0
    episode_return: float = 0.0

    def record(self, reward: float) -> None:
        """Counts the reward of the step that led to the current state (an episode's first act has none)."""
        if self.steps:
            self.episode_return += reward

    def summary(self, outcome: str) -> dict[str, Any]:
        """What the episode log keeps and ``close`` answers."""
        return {
            "episode_id": self.episode_id,
            "outcome": outcome,
            "seed": self.seed,
            "steps": self.steps,
            "return": self.episode_return,
            "started_at": self.started_at,
            "ended_at": time.time(),
        }


class Episodes:
    """The open episodes, by id, and the places each client holds (open episodes and reserved ones).

    Args:
        idle_timeout_s: An episode without a request for this long expires.
        max_open: At most this many episodes are open (or reserved) at a time, of all clients.
        max_per_client: At most this many of one client.
        log_path: Where ended episodes are appended as JSON lines (None: nowhere).
    """

    def __init__(
        self,
        idle_timeout_s: float,
        max_open: int,
        max_per_client: int,
        log_path: Optional[Path] = None,
    ) -> None:
        self.idle_timeout_s = idle_timeout_s
        self.max_open = max_open
        self.max_per_client = max_per_client
        self.counts: Counter[str] = Counter()
        self._open: dict[str, Episode] = {}
        self._held: Counter[str] = Counter()
        self._held_total = 0
        self._ended: OrderedDict[str, str] = OrderedDict()
        self._log = None if log_path is None else open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (closed in close())

    def __len__(self) -> int:
        return len(self._open)

    def reserve(self, client: str) -> None:
        """Takes a place for a new episode of ``client`` (fill it with :meth:`open` or give it back with :meth:`release`).

        Raises:
            ServiceError: 429 when the client holds ``max_per_client`` places, 503 when all hold ``max_open``.
        """
        wait = f"close episodes or wait for idle ones to expire ({self.idle_timeout_s:g} s)"
        if self._held[client] >= self.max_per_client:
            raise ServiceError(
                429, f"{self.max_per_client} episodes of this client are open, the most one client may have; {wait}"
            )
        if self._held_total >= self.max_open:
            raise ServiceError(503, f"{self.max_open} episodes are open, the most this service keeps; {wait}")
        self._held[client] += 1
        self._held_total += 1

    def release(self, client: str) -> None:
        """Gives back a place :meth:`reserve` took for ``client`` (or that an ended episode held)."""
        self._held[client] -= 1
        self._held_total -= 1
        if not self._held[client]:
            del self._held[client]

    def open(self, client: str, deployment: AgentDeployment, seed: Optional[int]) -> Episode:
        """Opens an episode of ``client`` in the place it reserved, with ``deployment`` (already reset with ``seed``)."""
        episode = Episode(uuid.uuid4().hex, deployment, seed, client)
        self._open[episode.episode_id] = episode
        self.counts["started"] += 1
        return episode

    def get(self, episode_id: str) -> Episode:
        """The open episode ``episode_id`` (its idle clock restarts).

        Raises:
            ServiceError: 404 for an unknown id, 409 for a closed or failed episode, 410 for an expired one.
        """
        now = time.monotonic()
        episode = self._open.get(episode_id)
        if episode is not None and now - episode.last_used > self.idle_timeout_s:
            self.end(episode, "expired")
            episode = None
        if episode is None:
            raise self._not_open(episode_id)
        episode.last_used = now
        return episode

    def end(self, episode: Episode, outcome: str) -> dict[str, Any]:
        """Removes the episode, logs it with ``outcome`` (closed, expired, failed) and returns its summary.

        An episode that has ended already (expired while its last request was in a worker) keeps its first outcome.
        """
        if self._open.pop(episode.episode_id, None) is None:
            return episode.summary(self._ended.get(episode.episode_id, outcome))
        self.release(episode.client)
        self._ended[episode.episode_id] = outcome
        if len(self._ended) > _ENDED_MEMORY:
            self._ended.popitem(last=False)
        self.counts[outcome] += 1
        summary = episode.summary(outcome)
        if self._log is not None:
            self._log.write(json.dumps(summary) + "\n")
            self._log.flush()
        return summary

    def expire_idle(self) -> int:
        """Ends every episode idle for longer than the timeout; returns how many."""
        deadline = time.monotonic() - self.idle_timeout_s
        idle = [episode for episode in self._open.values() if episode.last_used < deadline]
        for episode in idle:
            self.end(episode, "expired")
        return len(idle)

    def close(self) -> None:
        """Closes the episode log (open episodes are dropped with the process)."""
        if self._log is not None:
            self._log.close()

    def _not_open(self, episode_id: str) -> ServiceError:
        outcome = self._ended.get(episode_id)
        if outcome == "expired":
            return ServiceError(
                410,
                f"episode {episode_id!r} expired after {self.idle_timeout_s:g} s without a request; start a new one "
                "with POST /episodes",
                "episode_id",
            )
        if outcome is not None:
            return ServiceError(
                409, f"episode {episode_id!r} has ended ({outcome}); start a new one with POST /episodes", "episode_id"
            )
        return ServiceError(
            404,
            f"no open episode {episode_id!r}: the id is unknown to this service process (open episodes do not survive "
            "a restart); start one with POST /episodes",
            "episode_id",
        )
