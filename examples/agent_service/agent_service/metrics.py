"""Request counters and act latencies of this service process (they start at zero with the process)."""

from __future__ import annotations

import time
from collections import Counter, deque
from typing import Any

import numpy as np
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LATENCY_WINDOW", "Metrics", "MetricsMiddleware"]

LATENCY_WINDOW = 10_000
"""Act latency percentiles are taken over this many most recent acts."""


class Metrics:
    """Counts requests and responses by status, and keeps the latest act latencies."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.requests = 0
        self.statuses: Counter[int] = Counter()
        self.acts = 0
        self._act_seconds: deque[float] = deque(maxlen=LATENCY_WINDOW)

    def record_act(self, seconds: float) -> None:
        """Records the time one act request took inside the service (validation, policy, reply)."""
        self.acts += 1
        self._act_seconds.append(seconds)

    def snapshot(self) -> dict[str, Any]:
        """Counters and act latency percentiles (milliseconds) as plain data."""
        latencies = np.array(self._act_seconds) * 1000.0
        percentiles = (
            {f"p{q}": round(float(np.percentile(latencies, q)), 3) for q in (50, 90, 99)} if len(latencies) else {}
        )
        return {
            "uptime_s": round(time.monotonic() - self.started, 3),
            "requests": self.requests,
            "errors": sum(count for status, count in self.statuses.items() if status >= 400),
            "responses_by_status": {str(status): count for status, count in sorted(self.statuses.items())},
            "act_latency_ms": {"acts": self.acts, "window": len(latencies), **percentiles},
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
