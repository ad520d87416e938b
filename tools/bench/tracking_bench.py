"""What experiment tracking costs: the CartPole quick-start command with and without ``logger=mlflow`` / ``wandb``.

``python -m tools.bench --only tracking`` (``nox -s bench -- --only tracking``, whose venv has
the ``mlflow`` and ``wandb`` extras of maze-train).

Each run is the README's quick-start command (PPO until the deterministic evaluation averages
475, ``+experiment=cartpole_ppo_fast``) with a fixed seed, one fresh process each, in three
cases: ``logger=tensorboard`` (the default), ``logger=mlflow`` (the default SQLite store,
created by one untimed run first, as after a team's first run) and ``logger=wandb
logger.mode=offline``. Every round runs the three cases of a seed back to back, starting with
another case each round, so machine noise hits all alike; all cases train the same env steps.

* Training time: ``train_seconds`` of ``training_summary.json`` (the rollouts and updates the
  command reports as "in X s of training"); the ratio is the median of the per-pair ratios
  tracked / TensorBoard of the same seed and round, target ≤ 1.05.
* Training-process CPU: user + system seconds of the ``maze-run`` process itself (sampled from
  ``/proc`` until it exits; its children, the tracking process included, are not counted): what
  tracking adds to the training process, little affected by other load on the machine.
* Wall time: process start to exit, reported (not judged): the tracking process imports its
  library and opens the store at the training's priority, talks to it at nice 10 once its run
  exists or the first epoch's metrics are written, and the command waits at its end until the
  tracked run has its artifacts and status.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from .harness import RESULTS_DIR, machine
from .train_bench import maze_command, maze_run_executable

__all__ = ["CASES", "TARGET", "main", "run_case"]

TENSORBOARD = "logger=tensorboard (default)"
MLFLOW = "logger=mlflow (SQLite store)"
CASES = {
    TENSORBOARD: (),
    MLFLOW: ("logger=mlflow",),
    "logger=wandb (offline)": ("logger=wandb", "logger.mode=offline"),
}
"""Case name -> the overrides added to the quick-start command."""

TARGET = 1.05
SEEDS = (0, 1, 2)
RUN_TIMEOUT_S = 900
_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` alone (not its children), from ``/proc/<pid>/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime and stime: fields 14 and 15 of stat(5)


def run_measured(command: list[str], log_path: Path) -> tuple[int, float, float]:
    """Runs ``command``; returns its exit code, wall seconds and its own CPU seconds (sampled every 20 ms)."""
    cpu = [0.0]
    start = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, env=os.environ | {"OMP_NUM_THREADS": "1"}, stdout=log, stderr=log)
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            try:
                cpu[0] = process_cpu_seconds(process.pid)
            except (OSError, IndexError, ValueError):  # exiting: keep the last sample
                pass
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        code = process.wait(timeout=RUN_TIMEOUT_S)
    finally:
        done.set()
        sampler.join()
        if process.poll() is None:
            process.kill()
    return code, time.perf_counter() - start, cpu[0]


def run_case(overrides: tuple[str, ...], seed: int, work_dir: Path, name: str) -> dict[str, float]:
    """One quick-start run: wall, training and training-process CPU seconds, env steps, the load average before it.

    Raises:
        RuntimeError: The run failed or warned about tracking (its log tail is in the message).
    """
    run_dir = work_dir / name
    store = f"log_base_dir={work_dir / 'outputs'}"  # the default MLflow store: <log_base_dir>/mlflow.db
    command = maze_command(maze_run_executable(), seed, run_dir, (store, *overrides))
    log = work_dir / f"{name}.log"
    load = os.getloadavg()[0]
    code, wall, cpu = run_measured(command, log)
    text = log.read_text(encoding="utf-8", errors="replace")
    if code != 0 or "tracking failed" in text:
        raise RuntimeError(f"{' '.join(command)} failed (exit code {code}):\n{text[-3000:]}")
    summary = json.loads((run_dir / "training_summary.json").read_text(encoding="utf-8"))
    return {
        "wall": wall,
        "train": summary["train_seconds"],
        "cpu": cpu,
        "env_steps": summary["env_steps"],
        "load": load,
    }


def measure(rounds: int, seeds: tuple[int, ...]) -> dict[str, list[dict[str, float]]]:
    """All cases, back to back per seed (rotating which goes first), in one work directory and MLflow store."""
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in CASES}
    names = list(CASES)
    with tempfile.TemporaryDirectory() as directory:
        work_dir = Path(directory)
        run_case(CASES[MLFLOW], 0, work_dir, "store-setup")  # creates the store's tables (untimed)
        for round_index in range(rounds):
            for seed in seeds:
                shift = (round_index + seed) % len(names)
                for name in names[shift:] + names[:shift]:
                    result = run_case(CASES[name], seed, work_dir, f"r{round_index}-s{seed}-c{names.index(name)}")
                    runs[name].append({"seed": seed, "round": round_index, **result})
                    print(
                        f"  {name}, seed {seed}: {result['train']:.2f} s training, {result['cpu']:.2f} s CPU of the "
                        f"training process, {result['wall']:.1f} s wall, {result['env_steps']:,} env steps, load "
                        f"average {result['load']:.1f}",
                        flush=True,
                    )
    return runs


def ratios(runs: dict[str, list[dict[str, float]]], name: str, key: str) -> list[float]:
    """Per-pair ratios ``key`` of case ``name`` / the TensorBoard-only run of the same seed and round."""
    return [run[key] / base[key] for run, base in zip(runs[name], runs[TENSORBOARD], strict=True)]


def markdown(runs: dict[str, list[dict[str, float]]]) -> str:
    """The table of medians and of median ratios against the TensorBoard-only runs."""
    lines = [
        "| case | training s | training-process CPU s | wall s | training / TensorBoard | CPU / TensorBoard "
        "| wall / TensorBoard | target (training) | met |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for name, values in runs.items():
        train, cpu, wall = (statistics.median(run[key] for run in values) for key in ("train", "cpu", "wall"))
        if name == TENSORBOARD:
            lines.append(f"| {name} | {train:.2f} | {cpu:.2f} | {wall:.1f} | — | — | — | — | — |")
            continue
        train_ratio, cpu_ratio, wall_ratio = (
            statistics.median(ratios(runs, name, key)) for key in ("train", "cpu", "wall")
        )
        met = "yes" if train_ratio <= TARGET else "**no**"
        lines.append(
            f"| {name} | {train:.2f} | {cpu:.2f} | {wall:.1f} | {train_ratio:.3f}× | {cpu_ratio:.3f}× "
            f"| {wall_ratio:.2f}× | ≤ {TARGET:.2f}× | {met} |"
        )
    return "\n".join(lines)


def notes(runs: dict[str, list[dict[str, float]]], rounds: int, seeds: tuple[int, ...]) -> str:
    """How the table was measured (the text under it)."""
    loads = [run["load"] for values in runs.values() for run in values]
    return (
        "The README's quick-start command (`maze-run -cn conf_train env.name=CartPole-v1 algorithm=ppo "
        "model=vector_obs critic=template_state +experiment=cartpole_ppo_fast algorithm.target_reward=475`, seeds "
        f"{', '.join(map(str, seeds))}, {rounds} rounds), one process per run, the three cases of a seed back to "
        "back (same env steps). Medians over all runs; ratios are medians of the per-pair ratios against the "
        "TensorBoard-only run of the same seed and round. Training s: `train_seconds` of `training_summary.json`, "
        "the rollouts and updates the command reports as its training time. Training-process CPU s: user + system "
        "time of the `maze-run` process alone (its forked evaluation children and the tracking process not "
        "counted). The tracking library runs in a child process that `maze-run` starts before it imports torch; it "
        "connects at the training's priority (importing MLflow takes about 1.5 s of CPU, opening its SQLite store "
        "about 1 s) and runs at nice 10 once its run exists or the first epoch's metrics are written, so the training "
        "keeps its cores; the wall time includes the command's wait at its end until the tracked run has its "
        "artifacts and status. The MLflow store was created by one untimed run first (the very first run of a new "
        "store also pays MLflow's table creation, about 5 s here). W&B runs offline (no network). Load average "
        f"(1 min) before the runs: {min(loads):.1f}–{max(loads):.1f} on 2 cores (other jobs shared the machine)."
    )


def main(quick: bool) -> None:
    """Measures the cases; writes results/tracking.md and .json unless ``quick``."""
    rounds, seeds = (1, SEEDS[:1]) if quick else (3, SEEDS)
    print(f"\nTracking overhead: the CartPole quick-start command, {len(seeds)} seeds x {rounds} rounds per case ...")
    runs = measure(rounds, seeds)
    table = markdown(runs)
    print(table)
    if quick:
        return
    payload = {
        "benchmark": "tracking",
        "machine": machine(),
        "target_training_ratio": TARGET,
        "ratios": {
            name: {key: statistics.median(ratios(runs, name, key)) for key in ("train", "cpu", "wall")}
            for name in CASES
            if name != TENSORBOARD
        },
        "runs": runs,
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "tracking.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    title = "### Experiment tracking overhead (CartPole quick-start command)"
    text = f"{title}\n\n{table}\n\n{notes(runs, rounds, seeds)}\n\nMachine: {machine()}.\n"
    (RESULTS_DIR / "tracking.md").write_text(text, encoding="utf-8")
    print(f"written: {RESULTS_DIR / 'tracking.md'} and {RESULTS_DIR / 'tracking.json'}")
