"""Rollout runner choice: wall time of ``maze-run -cn conf_rollout`` with runner=sequential, parallel and auto.

Each case is one command in a fresh process, timed from start to exit (start-up, worker
start-up and the table included), as a user runs it. Rounds alternate the runners so machine
noise hits all alike; the table gives the median seconds. The jobs span both sides of the
crossover of :mod:`maze.rollout.auto_rollout_runner` (random policy unless named):

* CartPole-v1, 10 episodes (the small job of issue 32) and 2,000 episodes;
* the greedy Cutting-2D policy on the structured masked env, 2 and 40 episodes (180 steps each).

The target: ``runner=auto`` takes at most 1.15x the faster of the two forced runners in
every job (it pays one probe episode in the main process before handing over).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from .harness import RESULTS_DIR, machine
from .hpo_bench import maze_run

__all__ = ["JOBS", "RUNNERS", "main"]

RUNNERS = ("sequential", "parallel", "auto")

CUTTING = [
    "env=tutorial_cutting_2d_struct_masked",
    "wrappers=tutorial_cutting_2d",
    "policy=tutorial_cutting_2d_greedy_policy",
]

JOBS = {
    "CartPole-v1, 10 episodes": ["env.name=CartPole-v1", "runner.n_episodes=10"],
    "CartPole-v1, 2,000 episodes": ["env.name=CartPole-v1", "runner.n_episodes=2000"],
    "Cutting-2D greedy, 2 episodes": [*CUTTING, "runner.n_episodes=2"],
    "Cutting-2D greedy, 40 episodes": [*CUTTING, "runner.n_episodes=40"],
}

TARGET = 1.15
"""runner=auto's wall time over the faster forced runner's, at most."""


def command_seconds(job: list[str], runner: str) -> float:
    """Wall seconds of one ``maze-run -cn conf_rollout`` command (raises when it fails)."""
    executable = maze_run()
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        result = subprocess.run(
            [executable, "-cn", "conf_rollout", *job, f"runner={runner}", "hydra.run.dir=run"],
            cwd=directory,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
            capture_output=True,
            text=True,
            timeout=900,
        )
        seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"runner={runner} {job} failed:\n{result.stderr[-3000:]}")
    return seconds


def main(quick: bool) -> None:
    """Measures every job with every runner in alternating rounds; writes results/rollout_choice.md unless quick."""
    rounds = 1 if quick else 3
    jobs = dict(list(JOBS.items())[:1]) if quick else JOBS
    print(f"\nRollout runner choice: {len(jobs)} jobs x {len(RUNNERS)} runners x {rounds} rounds ...", flush=True)
    seconds = {job: {runner: [] for runner in RUNNERS} for job in jobs}
    for _ in range(rounds):
        for job, overrides in jobs.items():
            for runner in RUNNERS:
                seconds[job][runner].append(command_seconds(overrides, runner))
                print(f"  {job}, runner={runner}: {seconds[job][runner][-1]:.1f} s", flush=True)
    lines = [
        "| job | sequential s | parallel s | auto s | auto / faster forced | target | met |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    rows = []
    for job, by_runner in seconds.items():
        median = {runner: statistics.median(values) for runner, values in by_runner.items()}
        ratio = median["auto"] / min(median["sequential"], median["parallel"])
        rows.append({"job": job, **{f"{runner}_s": value for runner, value in median.items()}, "ratio": ratio})
        met = "yes" if ratio <= TARGET else "**no**"
        lines.append(
            f"| {job} | {median['sequential']:.1f} | {median['parallel']:.1f} | {median['auto']:.1f} | "
            f"{ratio:.2f}x | ≤ {TARGET:g}x | {met} |"
        )
    table = "\n".join(lines)
    print(table)
    if quick:
        return
    where = f"{machine()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end"
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": "rollout_choice", "machine": where, "rounds": rounds, "rows": rows}
    (RESULTS_DIR / "rollout_choice.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    markdown = (
        "### Rollout runner choice (maze-run -cn conf_rollout, wall seconds, median of rounds)\n\n"
        f"{table}\n\n{__doc__.split(chr(10), 2)[2].strip()}\n\nMachine: {where}.\n"
    )
    path = RESULTS_DIR / "rollout_choice.md"
    path.write_text(markdown, encoding="utf-8")
    print(f"written: {path} and {path.with_suffix('.json')}")


if __name__ == "__main__":
    main("--quick" in sys.argv)
