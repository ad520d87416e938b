"""Time-to-solve CartPole-v1: ``maze-run`` ES against sb3-contrib ARS (RL-Zoo), one subprocess per run.

Runs alternate (maze seed 0, ARS seed 0, maze seed 1, ...) and each is timed from process
start to exit, as in ``train_bench`` (whose child measurement and report helpers this reuses).

* maze: ``maze-run -cn conf_train env.name=CartPole-v1 algorithm=es model=vector_obs runner=dev``
  with the documented ES defaults, a noise table of 1e7 floats (40 MB; the default 1e8 is for
  large models), 20 evaluation episodes per iteration and a budget of :data:`MAZE_EPOCHS` iterations.
* ARS: ``python -m tools.bench.ars_cartpole --seed <s>`` (RL-Zoo hyperparameters, see that module).

Both stop at the first deterministic evaluation (20 episodes) whose mean return is at least 475.
"""

from __future__ import annotations

import json
import math
import os
import sys
from importlib import resources
from pathlib import Path

import yaml

from .harness import RESULTS_DIR, machine
from .train_bench import SEEDS, TARGET_REWARD, maze_run_executable, maze_vs_peer_runs
from .train_report import RunResult, per_run_table, summarize_tools, time_ratio, tool_table

__all__ = ["MAZE_EPOCHS", "MAX_TIME_RATIO", "es_command", "main", "run"]

MAZE_EPOCHS = 100
"""The documented budget: ES iterations (10 episodes each) before a run counts as not solved."""
MAX_TIME_RATIO = 0.5
TOOLS = ("maze", "ars")
LABELS = {"maze": "maze-run ES (es-dev)", "ars": "sb3-contrib ARS (RL-Zoo)"}
NOTES = (
    "Time to solve: wall time of the whole command (process start to exit: start-up, imports, construction, "
    "training and evaluations) until the first deterministic evaluation with a mean return ≥ 475 over 20 "
    "episodes; a seed that never gets there counts as not solved (∞). maze evaluates after every ES iteration "
    "(20 episodes side by side, one batched forward pass per step, in a forked child while the next iteration "
    "trains: `runner.background_evaluation`); ARS every 4,000 env steps at an update "
    "boundary (its mean policy, one episode after the other). Env-steps/s: training env steps / seconds in "
    "rollouts and updates, evaluation excluded. Peak RSS: the child's own `ru_maxrss`, largest over the seeds. "
    "Runs alternate maze/ARS per seed, one subprocess each, `OMP_NUM_THREADS=1`."
)


def es_command(executable: str, seed: int, run_dir: Path) -> list[str]:
    """The ``maze-run`` command line of one ES benchmark run."""
    return [
        executable,
        "-cn",
        "conf_train",
        "env.name=CartPole-v1",
        "algorithm=es",
        "model=vector_obs",
        "runner=dev",
        f"seeding.env_base_seed={seed}",
        f"seeding.agent_base_seed={seed}",
        f"algorithm.n_epochs={MAZE_EPOCHS}",
        f"algorithm.target_reward={TARGET_REWARD}",
        "runner.n_eval_rollouts=20",
        "runner.shared_noise_table_size=10000000",
        "runner.background_evaluation=true",
        f"hydra.run.dir={run_dir}",
    ]


def ars_command(seed: int, out: Path) -> list[str]:
    """The command line of one ARS run writing its result to ``out``."""
    return [sys.executable, "-m", "tools.bench.ars_cartpole", "--seed", str(seed), "--out", str(out)]


def run(seeds: tuple[int, ...]) -> list[RunResult]:
    """Runs maze ES and ARS once per seed, interleaved."""
    executable = maze_run_executable()
    return maze_vs_peer_runs(
        seeds, "es", lambda seed, run_dir: es_command(executable, seed, run_dir), "ars", ars_command
    )


def markdown(title: str, results: list[RunResult], command: str) -> tuple[str, dict]:
    """The summary, ratio and per-run tables plus notes, and the JSON payload."""
    tools = summarize_tools(results, TOOLS)
    maze, ars = tools["maze"], tools["ars"]
    ratio = time_ratio(maze, ars)
    met = ratio is not None and ratio <= MAX_TIME_RATIO and maze.all_solved
    lines = [f"### {title}", "", *tool_table(tools, LABELS)]
    value = "—" if ratio is None else f"{ratio:.2f}×"
    lines += [
        "",
        "| maze / ARS | ratio | target | met |",
        "|---|---:|---|---|",
        f"| time to solve (median) | {value} | ≤ {MAX_TIME_RATIO:g}×, every maze seed solved "
        f"| {'yes' if met else '**no**'} |",
        "",
        *per_run_table(results),
    ]
    lines += ["", NOTES, "", f"maze command (seed 0): `{command}`", "", f"Machine: {machine()}.", ""]
    payload = {
        "benchmark": "es",
        "machine": machine(),
        "maze_command": command,
        "time_ratio": ratio,
        "target_met": met,
        "tools": {
            name: {
                "solved": tool.solved,
                "seeds": tool.seeds,
                "time_median": tool.time_median if math.isfinite(tool.time_median) else None,
                "env_steps_median": tool.env_steps_median,
                "rate_median": tool.rate_median,
                "peak_rss_mib": tool.peak_rss_mib,
            }
            for name, tool in tools.items()
        },
        "runs": [r.__dict__ for r in results],
    }
    return "\n".join(lines), payload


def main(quick: bool) -> None:
    """Runs the benchmark, prints the tables and (unless ``quick``) writes ``results/es.*``."""
    seeds = SEEDS[:1] if quick else SEEDS
    title = "Time to solve CartPole-v1: maze-run ES vs sb3-contrib ARS (RL-Zoo)"
    print(f"\n{title}: seeds {list(seeds)}, interleaved, one subprocess per run ...", flush=True)
    results = run(seeds)
    command = " ".join(es_command("maze-run", seeds[0], Path("<tmp>/maze-<seed>")))
    text, payload = markdown(title, results, command)
    print("\nNoise table memory: es-local, 2 forkserver workers, the default 1e8 floats ...", flush=True)
    memory = noise_table_memory()
    payload["noise_table_memory_mib"] = memory
    text += memory_markdown(memory)
    print(text)
    if not quick:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        (RESULTS_DIR / "es.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        (RESULTS_DIR / "es.md").write_text(text, encoding="utf-8")
        print(f"written: {RESULTS_DIR / 'es.md'} and {RESULTS_DIR / 'es.json'}")


def memory_markdown(figures: dict[str, float]) -> str:
    """The noise-table memory table (one row per process)."""
    lines = [
        "",
        f"#### Shared noise table in memory: es-local with 2 workers, 1e8 floats ({figures['table MiB']:,.0f} MiB)",
        "",
        "| process | RssAnon MiB | RssShmem MiB | Pss of the table MiB |",
        "|---|---:|---:|---:|",
    ]
    for label in ("master", "worker 0", "worker 1"):
        lines.append(
            f"| {label} | {figures[f'{label} RssAnon MiB']:,.1f} | {figures[f'{label} RssShmem MiB']:,.1f} "
            f"| {figures[f'{label} table Pss MiB']:,.1f} |"
        )
    total = sum(figures[f"{label} table Pss MiB"] for label in ("master", "worker 0", "worker 1"))
    lines += [
        "",
        f"All processes together hold the table once (summed Pss {total:,.1f} MiB); a worker maps the master's "
        "`/dev/shm` block (its private memory, RssAnon, is torch and the env, not a copy of the table) and "
        "touches only the slices it perturbs with. Figures from `/proc/<pid>/status` and `/proc/<pid>/smaps` "
        "after each worker played one antithetic pair.",
        "",
    ]
    return "\n".join(lines)


def noise_table_memory(count: int = 100_000_000, n_workers: int = 2) -> dict[str, float]:
    """Memory of ``es-local``'s noise table with ``n_workers`` forkserver workers (MiB, from /proc).

    Builds the documented default table (1e8 floats, 381 MiB), starts the workers, lets each
    play one antithetic pair and reads, per process, ``RssAnon`` / ``RssShmem`` of
    ``/proc/<pid>/status`` and the proportional share (Pss) of the table's ``/dev/shm`` mapping.
    """
    from maze.env.gym_adapter.gym_maze_env import GymMazeEnv
    from maze.perception.models.spaces_config import SpacesConfig
    from maze.train.runners.env_factory import EnvFactory
    from maze.train.trainers.es import (
        ESSubprocDistributedRollouts,
        ESWorkerFactory,
        SharedNoiseTable,
        TorchPolicyFactory,
        get_flat_parameters,
    )

    model = yaml.safe_load(resources.files("maze.perception.conf.model").joinpath("vector_obs.yaml").read_text())
    spaces = SpacesConfig.from_env(GymMazeEnv("CartPole-v1"))
    env_factory = EnvFactory({"_target_": "maze.env.gym_adapter.gym_maze_env.make_gym_maze_env", "name": "CartPole-v1"})
    table = SharedNoiseTable(count, seed=0)
    factory = ESWorkerFactory(env_factory, TorchPolicyFactory(model, spaces), table, None, torch_threads=1)
    rollouts = ESSubprocDistributedRollouts(factory, seeds=list(range(n_workers)), start_method="forkserver")
    try:
        theta = get_flat_parameters(factory.policy_factory()).numpy()
        stream = rollouts.generate_rollouts(theta, 0.02, 100)
        for _ in range(n_workers):
            next(stream)
        stream.close()
        pids = {"master": os.getpid(), **{f"worker {i}": p.pid for i, p in enumerate(rollouts.processes)}}
        figures: dict[str, float] = {"table MiB": count * 4 / 2**20}
        for label, pid in pids.items():
            status = dict(
                line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
            )
            for field in ("RssAnon", "RssShmem"):
                figures[f"{label} {field} MiB"] = int(status[field].split()[0]) / 1024
            figures[f"{label} table Pss MiB"] = _shm_pss_kib(pid, table.name) / 1024
        return figures
    finally:
        rollouts.close()
        table.close()


def _shm_pss_kib(pid: int, name: str) -> int:
    """The Pss (kB) of the ``/dev/shm/<name>`` mappings of ``pid``."""
    total, inside = 0, False
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5:
            inside = fields[-1] == f"/dev/shm/{name}"
        elif inside and fields[0] == "Pss:":
            total += int(fields[1])
    return total
