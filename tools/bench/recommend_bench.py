"""Recommendation latency: ``AgentDeployment.recommend(k=3, horizon=20, n_rollouts=4)`` on Cutting-2D.

The masked structured Cutting-2D env (the tutorial's simple problem) at a mid-episode state
with five stocked pieces; 12 rollouts of 20 env steps (40 sub-steps) each per request.
Cases, each in-process (``n_workers=0``) and with two worker processes (``n_workers=2``;
the workers are started before timing, their start-up is reported apart):

* ``Cutting2DGreedyPolicy`` (heuristic, torch-free: what the simulation itself costs);
* the tutorial's masked structured torch policy (``tutorial_cutting_2d_struct_masked``,
  untrained, one torch thread: a policy forward per sub-step).

Requests of all cases alternate round by round; p50 and p99 are over all timed requests.
A second table holds the agent service's p50/p99 under 8 concurrent clients
(:mod:`tools.bench.recommend_service_bench`).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from importlib.resources import files
from typing import Any

import numpy as np
import torch
import yaml
from maze.deploy import AgentDeployment
from maze.env.examples.cutting_2d import Cutting2DGreedyPolicy, Cutting2DMazeState, masked_struct_env_factory
from maze.env.utils.spaces_config import SpacesConfig
from maze.perception.models import build_model_composer

from .harness import RESULTS_DIR, machine
from .recommend_service_bench import markdown_rows, measure_service

__all__ = ["LatencyRow", "main"]

TITLE = "Recommendation latency (recommend(k=3, horizon=20, n_rollouts=4), masked structured Cutting-2D)"
ENV = {"_target_": "maze.env.examples.cutting_2d.masked_struct_env_factory"}
STATE = Cutting2DMazeState([(4, 3), (2, 3), (1, 2), (2, 2), (1, 1)], 50, (1, 2), (4, 3))
REQUEST = {"k": 3, "horizon": 20, "n_rollouts": 4}


@dataclass(frozen=True)
class LatencyRow:
    """One case of the table: request latency percentiles in milliseconds."""

    case: str
    workers: int
    requests: int
    p50_ms: float
    p99_ms: float
    note: str = ""


def torch_policy() -> Any:
    """The tutorial's masked structured policy, untrained (seeded)."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    config = yaml.safe_load(
        (files("maze.perception") / "conf" / "model" / "tutorial_cutting_2d_struct_masked.yaml").read_text()
    )
    return build_model_composer(config, SpacesConfig.from_env(masked_struct_env_factory())).torch_policy("cpu")


def measure(quick: bool) -> tuple[list[LatencyRow], dict[str, float]]:
    """Times every case; returns the rows and the worker start-up seconds per policy."""
    rounds = 3 if quick else 40
    deployments = {
        "Cutting2DGreedyPolicy": AgentDeployment(policy=Cutting2DGreedyPolicy(), env=ENV),
        "tutorial torch policy": AgentDeployment(policy=torch_policy(), env=ENV),
    }
    startup = {}
    for name, agent in deployments.items():
        agent.recommend(STATE, **REQUEST)  # builds the in-process simulation env
        started = time.perf_counter()
        agent.recommend(STATE, **REQUEST, n_workers=2)  # starts the workers
        startup[name] = time.perf_counter() - started
    timings: dict[tuple[str, int], list[float]] = {(name, n): [] for name in deployments for n in (0, 2)}
    for round_index in range(rounds):
        for (name, workers), values in timings.items():
            started = time.perf_counter()
            recommendation = deployments[name].recommend(STATE, **REQUEST, seed=round_index, n_workers=workers)
            values.append(time.perf_counter() - started)
            assert recommendation.rollouts_finished == 12 and len(recommendation) == 3
    for agent in deployments.values():
        agent.close_recommender()
    rows = [
        LatencyRow(name, workers, len(values), 1e3 * np.percentile(values, 50), 1e3 * np.percentile(values, 99))
        for (name, workers), values in timings.items()
    ]
    return rows, startup


def markdown(rows: list[LatencyRow]) -> str:
    """The table."""
    lines = ["| policy | workers | requests | p50 (ms) | p99 (ms) | note |", "|---|---:|---:|---:|---:|---|"]
    for row in rows:
        lines.append(
            f"| {row.case} | {row.workers} | {row.requests} | {row.p50_ms:.1f} | {row.p99_ms:.1f} | {row.note} |"
        )
    return "\n".join(lines)


def main(quick: bool) -> None:
    """Runs the suite; writes ``results/recommend.md`` and ``.json`` unless ``quick``."""
    print(f"\n{TITLE} ...", flush=True)
    rows, startup = measure(quick)
    service = measure_service(seconds=3.0 if quick else 10.0, rounds=1 if quick else 2)
    table = markdown(rows) + "\n\n" + "\n".join(markdown_rows(service))
    notes = (
        "12 rollouts of 20 env steps (40 sub-steps) per request; the policy follows its most likely action after "
        "each candidate. Workers: a SubprocVectorEnv of 2 processes kept between requests; their start-up "
        + ", ".join(f"{name}: {seconds:.2f} s" for name, seconds in startup.items())
        + " (first request only, not in the table)."
    )
    print(table + "\n\n" + notes)
    if quick:
        return
    RESULTS_DIR.mkdir(exist_ok=True)
    text = f"# {TITLE}\n\nMachine: {machine()}\n\n{table}\n\n{notes}\n"
    (RESULTS_DIR / "recommend.md").write_text(text, encoding="utf-8")
    data = {
        "title": TITLE,
        "machine": machine(),
        "rows": [asdict(row) for row in rows],
        "service": asdict(service),
        "startup_s": startup,
    }
    (RESULTS_DIR / "recommend.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(f"written: {RESULTS_DIR / 'recommend.md'} and .json")
