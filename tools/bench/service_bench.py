"""Serving without torch (issue 28): the reference agent service under load, cold start, installed size.

* Service: ``examples/agent_service`` serving the ONNX export of a tiny CartPole PPO run (deterministic),
  driven over loopback by 8 and 64 concurrent clients (``ServiceClient``, one asyncio process).
  Each client plays episodes on its own gymnasium CartPole-v1 (start, one act per step,
  close) until the round's time is up (the episodes then open are closed as truncated).
  Requests/s = all requests / wall time; act p50/p99 = the client-observed round trip of each act (the service's own act time,
  from ``/metrics``, beside it). Client and server share this machine's cores.
* Cold start to first action: a fresh ``python -I`` process imports maze.deploy, loads the run
  with ``AgentDeployment.from_run_dir(..., backend=...)`` and acts once on a CartPole state;
  timed from spawning it until it reports the action (ONNX and torch alternate).
* Installed size: two fresh venvs built with ``tools/constraints.txt``: maze-env, maze-rollout and
  maze-deploy[onnx] (torch-free) against the same with maze-deploy[torch] (maze-distributions,
  maze-perception, torch); the bytes of the files under each venv's site-packages (pip included in both).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from itertools import count
from pathlib import Path
from typing import Any

import numpy as np

from .harness import RESULTS_DIR, machine

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_DIR = REPO_ROOT / "examples" / "agent_service"
sys.path.insert(0, str(EXAMPLE_DIR))
from agent_service.client import ServiceClient  # noqa: E402
from agent_service.process import ServiceProcess  # noqa: E402
from tiny_run import train_and_export  # noqa: E402

__all__ = ["main"]

TITLE = "Serving without torch (the reference agent service, CartPole-v1, ONNX policy on loopback)"
CLIENTS = (8, 64)
TARGET_SIZE_RATIO = 0.25
VENVS = {
    "torch-free (maze-deploy[onnx])": ("maze-env", "maze-rollout", "maze-deploy[onnx]"),
    "torch (maze-deploy[torch])": (
        "maze-env",
        "maze-distributions",
        "maze-perception",
        "maze-rollout",
        "maze-deploy[torch]",
    ),
}
"""Venv name -> the in-repo requirements it installs (their in-repo dependencies are local paths too)."""

FIRST_ACTION = """
import sys
import gymnasium as gym
from maze.deploy import AgentDeployment
agent = AgentDeployment.from_run_dir(sys.argv[1], backend=sys.argv[2], deterministic=True)
state, info = gym.make("CartPole-v1").reset(seed=0)
print("action", agent.act(state, 0.0, False, info), flush=True)
"""


@dataclass
class LoadRow:
    """One concurrency level: throughput and act latencies (ms)."""

    clients: int
    requests: int
    seconds: float
    requests_per_s: float
    act_p50_ms: float
    act_p99_ms: float
    service_act_p50_ms: float
    service_act_p99_ms: float


async def _load(url: str, clients: int, seconds: float) -> tuple[int, list[float], dict[str, Any]]:
    """``clients`` concurrent clients play episodes until ``seconds`` passed; returns requests, act latencies, metrics."""
    seeds = count()
    deadline = time.perf_counter() + seconds
    async with ServiceClient(url, max_in_flight=clients) as client:

        async def one_client() -> tuple[int, list[float]]:
            requests, latencies = 0, []
            while time.perf_counter() < deadline:
                result = await client.play_episode(next(seeds), deadline=deadline)
                requests += result.requests
                latencies += result.act_seconds
            return requests, latencies

        done = await asyncio.gather(*(one_client() for _ in range(clients)))
        metrics = (await client.request("GET", "/metrics")).json()
    return sum(requests for requests, _ in done), [x for _, latencies in done for x in latencies], metrics


def measure_load(model_dir: Path, seconds: float, rounds: int) -> list[LoadRow]:
    """Each concurrency level ``rounds`` times (alternating), on a fresh service per round."""
    runs: dict[int, list[tuple[int, float, list[float], dict]]] = {clients: [] for clients in CLIENTS}
    for _ in range(rounds):
        for clients in CLIENTS:
            with ServiceProcess(model_dir) as service:
                asyncio.run(_load(service.url, clients, 1.0))  # warm-up
                started = time.perf_counter()
                requests, latencies, metrics = asyncio.run(_load(service.url, clients, seconds))
                runs[clients].append((requests, time.perf_counter() - started, latencies, metrics))
    rows = []
    for clients, results in runs.items():
        latencies = np.array([x for _, _, round_latencies, _ in results for x in round_latencies]) * 1000
        service = [metrics["act_latency_ms"] for *_, metrics in results]
        rows.append(
            LoadRow(
                clients=clients,
                requests=sum(requests for requests, *_ in results),
                seconds=sum(elapsed for _, elapsed, *_ in results),
                requests_per_s=statistics.median(requests / elapsed for requests, elapsed, *_ in results),
                act_p50_ms=float(np.percentile(latencies, 50)),
                act_p99_ms=float(np.percentile(latencies, 99)),
                service_act_p50_ms=statistics.median(entry["p50"] for entry in service),
                service_act_p99_ms=statistics.median(entry["p99"] for entry in service),
            )
        )
    return rows


def measure_cold_start(run_dir: Path, repeats: int) -> dict[str, list[float]]:
    """Seconds from spawning a fresh process to its first action, per backend."""
    targets = {"onnx": run_dir / "onnx", "torch": run_dir}
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    times: dict[str, list[float]] = {backend: [] for backend in targets}
    for _ in range(repeats):
        for backend, target in targets.items():
            started = time.perf_counter()
            result = subprocess.run(
                [sys.executable, "-I", "-c", FIRST_ACTION, str(target), backend],
                capture_output=True,
                text=True,
                env=env,
                timeout=300,
            )
            elapsed = time.perf_counter() - started
            if result.returncode != 0 or "action" not in result.stdout:
                raise RuntimeError(f"the {backend} cold start failed: {result.stderr[-2000:]}")
            times[backend].append(elapsed)
    return times


def measure_venv_sizes(directory: Path) -> dict[str, int]:
    """Bytes under site-packages of each venv of :data:`VENVS`, built fresh in ``directory``."""
    sizes = {}
    for index, (name, requirements) in enumerate(VENVS.items()):
        venv = directory / f"venv-{index}"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        paths = [str(REPO_ROOT / "packages" / requirement) for requirement in requirements]
        pip = [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "-c",
            str(REPO_ROOT / "tools/constraints.txt"),
        ]
        subprocess.run([*pip, *paths], check=True, timeout=1200)
        (site_packages,) = venv.glob("lib/python*/site-packages")
        sizes[name] = sum(
            path.stat().st_size for path in site_packages.rglob("*") if path.is_file() and not path.is_symlink()
        )
    return sizes


def markdown(
    rows: list[LoadRow], cold: dict[str, list[float]], sizes: dict[str, int], seconds: float, rounds: int
) -> str:
    """The results tables with notes."""
    lines = [
        f"### {TITLE}",
        "",
        "| concurrent clients | requests/s | act p50 ms | act p99 ms | service's act p50 ms | service's act p99 ms |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.clients} | {row.requests_per_s:.0f} | {row.act_p50_ms:.2f} | {row.act_p99_ms:.2f} | "
            f"{row.service_act_p50_ms:.2f} | {row.service_act_p99_ms:.2f} |"
        )
    lines += [
        "",
        "| cold start to first action | median s | min s | max s |",
        "|---|---:|---:|---:|",
    ]
    for backend, times in cold.items():
        lines.append(f"| {backend} | {statistics.median(times):.2f} | {min(times):.2f} | {max(times):.2f} |")
    torch_free, with_torch = sizes.values()
    ratio = torch_free / with_torch
    lines += ["", "| deployment venv | site-packages MB |", "|---|---:|"]
    lines += [f"| {name} | {size / 1e6:.0f} |" for name, size in sizes.items()]
    lines += [
        "",
        f"Installed size: torch-free / torch = {ratio:.2f}x (target ≤ {TARGET_SIZE_RATIO}x: "
        f"{'met' if ratio <= TARGET_SIZE_RATIO else '**not met**'}).",
        "",
        f"Load: {rounds} rounds of {seconds:g} s per level, each on a freshly started service (uvicorn, one worker, "
        "plain asyncio and h11) after a 1 s warm-up; requests/s is the median over rounds, the latencies pool every "
        "act of every round. Client and server share the machine's cores (the client is one Python process), so "
        "the rates are those of the pair; the service's own act time (validation, deployment, reply) is measured "
        "inside it. Cold start: median of "
        f"{len(next(iter(cold.values())))} fresh processes per backend (interpreter start, imports, load, one act).",
        "",
        f"Machine: {machine()}.",
        "",
    ]
    return "\n".join(lines)


def main(quick: bool) -> None:
    """Runs the suite, prints the tables and (unless ``quick``) writes ``results/deploy_service.*``."""
    seconds, rounds, repeats = (2.0, 1, 2) if quick else (10.0, 3, 7)
    print(f"\n{TITLE}: {rounds} x {seconds:g} s per level, {repeats} cold starts per backend ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="maze-service-bench-") as scratch:
        run_dir = Path(scratch) / "run"
        sizes = measure_venv_sizes(Path(scratch))
        model_dir = train_and_export(run_dir)
        rows = measure_load(model_dir, seconds, rounds)
        cold = measure_cold_start(run_dir, repeats)
    text = markdown(rows, cold, sizes, seconds, rounds)
    print(text)
    if quick:
        return
    payload = {
        "benchmark": "deploy_service",
        "machine": machine(),
        "rounds": rounds,
        "seconds_per_round": seconds,
        "load": [asdict(row) for row in rows],
        "cold_start_s": cold,
        "site_packages_bytes": sizes,
        "size_ratio": list(sizes.values())[0] / list(sizes.values())[1],
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "deploy_service.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    path = RESULTS_DIR / "deploy_service.md"
    path.write_text(text, encoding="utf-8")
    print(f"written: {path} and {path.with_suffix('.json')}")
