"""Time-to-solve CartPole-v1 with IMPALA: ``maze-run`` IMPALA (2 actor processes) vs SB3 PPO vs ``maze-run`` PPO.

Reuses the training benchmark's harness (:mod:`tools.bench.train_bench`): one fresh
subprocess per run, whole-command wall time, runs interleaved per seed (IMPALA, SB3, PPO
for seed 0, then seed 1, ...), all stopping at the first deterministic evaluation of 20
episodes with a mean of at least 475.

* maze IMPALA: ``algorithm=impala runner=local algorithm.num_actors=2 +experiment=cartpole_impala_fast``.
* SB3 PPO: RL-Zoo hyperparameters (:mod:`tools.bench.sb3_cartpole`).
* maze PPO: ``+experiment=cartpole_ppo_fast`` with ``runner=dev``.

For IMPALA it also reports the learner's share of update wall time spent waiting for actor
outputs (``ImpalaEvents/learner_wait_share``, mean over the epochs, from TensorBoard).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict
from pathlib import Path

from .harness import RESULTS_DIR, machine
from .train_bench import SEEDS, Commands, interleaved_runs, maze_command, maze_run_executable, sb3_command
from .train_report import RunResult, per_run_table, summarize_tools, time_ratio, tool_table

__all__ = ["main", "run"]

TOOLS = {
    "impala": "maze-run IMPALA (local, 2 actors)",
    "sb3": "stable-baselines3 PPO (RL-Zoo)",
    "ppo": "maze-run PPO (fast experiment)",
}
WAIT_TAG = "train_ImpalaEvents/learner_wait_share"
TIME_TARGET = 0.5


def impala_command(executable: str, seed: int, run_dir: Path) -> list[str]:
    """The IMPALA run of a seed (the tuned settings live in ``experiment/cartpole_impala_fast.yaml``)."""
    return maze_command(
        executable, seed, run_dir, ("algorithm.num_actors=2",), "impala", "local", "cartpole_impala_fast"
    )


def learner_wait_share(run_dir: Path) -> float | None:
    """The mean over the epochs of the learner's waiting share, or None without the scalar."""
    from maze.train.tensorboard import read_scalars

    values = read_scalars(run_dir).get(WAIT_TAG, [])
    return statistics.mean(value for _, value in values) if values else None


def run(seeds: tuple[int, ...]) -> tuple[list[RunResult], dict[int, float | None]]:
    """Runs the three tools per seed, interleaved; returns the runs and IMPALA's waiting share per seed."""
    executable = maze_run_executable()
    waits: dict[int, float | None] = {}

    def commands(seed: int, work_dir: Path) -> Commands:
        impala_dir, sb3_out, ppo_dir = (
            work_dir / f"impala-{seed}",
            work_dir / f"sb3-{seed}.json",
            work_dir / f"ppo-{seed}",
        )
        return {
            "impala": (impala_command(executable, seed, impala_dir), impala_dir / "training_summary.json"),
            "sb3": (sb3_command(seed, sb3_out), sb3_out),
            "ppo": (maze_command(executable, seed, ppo_dir), ppo_dir / "training_summary.json"),
        }

    def read_wait_share(seed: int, work_dir: Path) -> None:
        impala_dir = work_dir / f"impala-{seed}"
        waits[seed] = learner_wait_share(impala_dir) if impala_dir.is_dir() else None

    return interleaved_runs(seeds, "maze-impala-bench-", commands, read_wait_share), waits


def markdown(title: str, results: list[RunResult], waits: dict[int, float | None], command: str) -> str:
    """The per-tool table, the IMPALA / SB3 time ratio and the per-run table."""
    tools = summarize_tools(results, TOOLS)
    lines = [f"### {title}", "", *tool_table(tools, TOOLS)]
    impala, sb3 = tools["impala"], tools["sb3"]
    ratio = time_ratio(impala, sb3)
    met = ratio is not None and ratio <= TIME_TARGET and impala.all_solved
    known_waits = [wait for wait in waits.values() if wait is not None]
    lines += [
        "",
        "| IMPALA / SB3 | ratio | target | met |",
        "|---|---:|---|---|",
        f"| time to solve (median) | {'—' if ratio is None else f'{ratio:.2f}×'} "
        f"| ≤ {TIME_TARGET}×, every IMPALA seed solved | {'yes' if met else '**no**'} |",
        "",
        "IMPALA learner's share of update wall time spent waiting for actor outputs (mean over epochs): "
        + ", ".join(f"seed {seed}: {'—' if wait is None else f'{wait:.0%}'}" for seed, wait in waits.items())
        + (f" (median {statistics.median(known_waits):.0%})." if known_waits else "."),
        "",
        *per_run_table(results),
    ]
    lines += [
        "",
        "Time to solve: wall time of the whole command until the first deterministic evaluation with a mean "
        "return ≥ 475 over 20 episodes (∞: not solved). Env-steps/s: env steps / seconds in rollouts and "
        "updates (evaluation excluded). Runs alternate IMPALA/SB3/PPO per seed, one subprocess each, "
        "`OMP_NUM_THREADS=1`.",
        "",
        f"IMPALA command (seed 0): `{command}`",
        "",
        f"Machine: {machine()}.",
        "",
    ]
    return "\n".join(lines)


def main(quick: bool) -> None:
    """Runs the benchmark, prints the table and (unless ``quick``) writes ``results/impala.*``."""
    seeds = SEEDS[:1] if quick else SEEDS
    title = "Time to solve CartPole-v1: maze-run IMPALA (2 actors) vs stable-baselines3 PPO vs maze-run PPO"
    print(f"\n{title}: seeds {list(seeds)}, interleaved, one subprocess per run ...", flush=True)
    results, waits = run(seeds)
    command = " ".join(impala_command("maze-run", seeds[0], Path("<tmp>/impala-<seed>")))
    text = markdown(title, results, waits, command)
    print(text)
    if not quick:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        payload = {
            "benchmark": "impala",
            "machine": machine(),
            "impala_command": command,
            "learner_wait_share": waits,
            "runs": [asdict(r) for r in results],
        }
        (RESULTS_DIR / "impala.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        (RESULTS_DIR / "impala.md").write_text(text, encoding="utf-8")
        print(f"written: {RESULTS_DIR / 'impala.md'} and {RESULTS_DIR / 'impala.json'}")
