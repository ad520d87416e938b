"""Request counters and act and recommendation latencies of this service process (they start at zero with it)."""

from __future__ import annotations

import time
from collections import Counter, deque
from typing import Any

import numpy as np
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LATENCY_WINDOW", "Latencies", "Metrics", "MetricsMiddleware"]

LATENCY_WINDOW = 10_000
"""Latency percentiles are taken over this many most recent requests of their kind."""


class Latencies:
    """How many requests of one kind were answered, and the latest ``LATENCY_WINDOW`` of their latencies."""

    def __init__(self) -> None:
        self.count = 0
        self._seconds: deque[float] = deque(maxlen=LATENCY_WINDOW)

    def record(self, seconds: float) -> None:
        """Records the time one request took inside the service."""
        self.count += 1
        self._seconds.append(seconds)

    def snapshot(self, counted: str) -> dict[str, Any]:
        """``{counted: count, "window": n, "p50", "p90", "p99"}`` (milliseconds; no percentiles before a request)."""
        latencies = np.array(self._seconds) * 1000.0
        percentiles = (
            {f"p{q}": round(float(np.percentile(latencies, q)), 3) for q in (50, 90, 99)} if len(latencies) else {}
        )
        return {counted: self.count, "window": len(latencies), **percentiles}


class Metrics:
    """Counts requests and responses by status, and keeps the latest act and recommendation latencies."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.requests = 0
        self.statuses: Counter[int] = Counter()
        self.acts = Latencies()
        self.recommendations = Latencies()

    def record_act(self, seconds: float) -> None:
        """Records the time one act request took inside the service (validation, policy, reply)."""
        self.acts.record(seconds)

    def snapshot(self) -> dict[str, Any]:
        """Counters and latency percentiles (milliseconds) as plain data."""
        return {
            "uptime_s": round(time.monotonic() - self.started, 3),
            "requests": self.requests,
            "errors": sum(count for status, count in self.statuses.items() if status >= 400),
            "responses_by_status": {str(status): count for status, count in sorted(self.statuses.items())},
            "act_latency_ms": self.acts.snapshot("acts"),
            "recommend_latency_ms": self.recommendations.snapshot("recommendations"),
        }


class MetricsMiddleware:
    """Pure ASGI middleware: counts every HTTP request and its response status into ``metrics``.

    Args:
        app: The wrapped ASGI app.
        metrics: Where to count.
    """

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.metrics.requests += 1

        async def counting_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.metrics.statuses[message["status"]] += 1
            await send(message)

        await self.app(scope, receive, counting_send)
