"""The agent service's recommend route under 8 concurrent clients (issue 50): the service rows of ``--only recommend``.

The reference service (``examples/agent_service``) serves the ONNX export of the tiny
Cutting-2D run (``tiny_run.py <dir> cutting``) on loopback with its default settings (2
recommendation threads, in-process rollouts). 8 clients, each with an episode of its own, send
``recommend(k=3, horizon=20, n_rollouts=4)`` back to back (the seed changes per request) until
the round's time is up; p50/p99 are the client-observed round trips, the service's own
recommend latency (``/metrics``) beside them. Client and server share the machine's cores.

:func:`measure_service` returns the rows; :func:`markdown_rows` formats them for the
recommend benchmark's table. ``python -m tools.bench.recommend_service_bench`` prints them.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_DIR = REPO_ROOT / "examples" / "agent_service"
sys.path.insert(0, str(EXAMPLE_DIR))
from agent_service.client import ServiceClient  # noqa: E402
from agent_service.process import ServiceProcess  # noqa: E402
from tiny_run import train_and_export  # noqa: E402

__all__ = ["CLIENTS", "REQUEST", "ServiceRow", "markdown_rows", "measure_service"]

CLIENTS = 8
STATE = {
    "inventory": [[4, 3], [2, 3]],
    "max_pieces_in_inventory": 50,
    "current_demand": [1, 2],
    "raw_piece_size": [4, 3],
}
REQUEST = {"k": 3, "horizon": 20, "n_rollouts": 4}


@dataclass(frozen=True)
class ServiceRow:
    """One measurement of the service under ``clients`` concurrent recommending clients."""

    clients: int
    recommendations: int
    seconds: float
    per_s: float
    p50_ms: float
    p99_ms: float
    service_p50_ms: float
    service_p99_ms: float


async def _load(url: str, clients: int, seconds: float) -> tuple[list[float], dict[str, Any]]:
    deadline = time.perf_counter() + seconds
    async with ServiceClient(url, max_in_flight=clients) as client:
        episodes = [await client.start_episode(seed) for seed in range(clients)]

        async def one_client(episode: str, offset: int) -> list[float]:
            latencies, seed = [], offset
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                await client.recommend(episode, STATE, seed=seed, **REQUEST)
                latencies.append(time.perf_counter() - started)
                seed += clients
            return latencies

        done = await asyncio.gather(*(one_client(episode, i) for i, episode in enumerate(episodes)))
        metrics = (await client.request("GET", "/metrics")).json()
    return [x for latencies in done for x in latencies], metrics


def measure_service(seconds: float = 10.0, rounds: int = 2, model_dir: Optional[Path] = None) -> ServiceRow:
    """``rounds`` rounds of ``seconds`` of :data:`CLIENTS` clients, each on a fresh service (after a 1 s warm-up).

    Args:
        seconds: Length of one measured round.
        rounds: Rounds (their latencies pooled; the service's own percentiles: median over rounds).
        model_dir: The Cutting-2D export to serve (None: train and export the tiny run into a temporary folder).
    """
    with tempfile.TemporaryDirectory(prefix="maze-recommend-bench-") as scratch:
        if model_dir is None:
            model_dir = train_and_export(Path(scratch) / "run", env="cutting")
        results = []
        for _ in range(rounds):
            with ServiceProcess(model_dir, log_path=Path(scratch) / "service.log") as service:
                asyncio.run(_load(service.url, CLIENTS, 1.0))
                started = time.perf_counter()
                latencies, metrics = asyncio.run(_load(service.url, CLIENTS, seconds))
                results.append((latencies, time.perf_counter() - started, metrics["recommend_latency_ms"]))
    pooled = np.array([x for latencies, _, _ in results for x in latencies]) * 1000
    total = sum(elapsed for _, elapsed, _ in results)
    return ServiceRow(
        clients=CLIENTS,
        recommendations=len(pooled),
        seconds=total,
        per_s=len(pooled) / total,
        p50_ms=float(np.percentile(pooled, 50)),
        p99_ms=float(np.percentile(pooled, 99)),
        service_p50_ms=statistics.median(entry["p50"] for _, _, entry in results),
        service_p99_ms=statistics.median(entry["p99"] for _, _, entry in results),
    )


def markdown_rows(row: ServiceRow) -> list[str]:
    """The service's rows of the recommend table (markdown)."""
    return [
        "| setting | recommendations | per s | p50 (ms) | p99 (ms) | service p50 / p99 (ms) |",
        "|---|---|---|---|---|---|",
        f"| agent service, {row.clients} concurrent clients (k=3, horizon 20, 4 rollouts) | {row.recommendations} "
        f"| {row.per_s:.1f} | {row.p50_ms:.0f} | {row.p99_ms:.0f} | {row.service_p50_ms:.0f} / {row.service_p99_ms:.0f} |",
    ]


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    print("\n".join(markdown_rows(measure_service(seconds=3.0 if quick else 10.0, rounds=1 if quick else 2))))
