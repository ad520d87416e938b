"""PPO epoch time on an idle and on a busy machine: maze (1 thread, torch's default) against SB3.

``python -m tools.bench --only busy`` (or ``python -m tools.bench.busy_bench [--rounds N]``).

"Busy" means two CPU-bound background processes (pure-Python busy loops) run for the whole
measurement. Each case is a fresh training process that trains a fixed number of PPO epochs
and reports the seconds of its rollouts and updates per epoch (start-up and evaluations
excluded); runs alternate idle/busy and case by case in every round, so slow drifts of the
machine hit all alike. The thread variables (``OMP_NUM_THREADS``, ...) are removed from the
children's environment, so every tool runs with its own defaults unless a case sets them.

Cases (the same PPO workload on CartPole-v1 for maze and SB3: 8 envs x 32 steps per update,
batch 256, 10 passes, 64-unit layers; one "epoch" = 16 updates = 4,096 env steps):

* ``maze`` — ``maze-run`` with its default ``runner.cpu_threads=1``;
* ``maze (torch threads)`` — ``runner.cpu_threads=null`` (torch's default: one per core);
* ``sb3`` — stable-baselines3 PPO (its default: torch's threads);
* ``maze Cutting-2D`` — the masked structured Cutting-2D env of the tutorial (two sub-steps
  per env step), maze only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .harness import RESULTS_DIR, machine

__all__ = ["CASES", "main", "measure"]

ROOT = Path(__file__).resolve().parents[2]
EPOCHS = 2
UPDATES_PER_EPOCH = 16
N_ENVS, N_STEPS, BATCH, PASSES = 8, 32, 256, 10
TARGET_RATIO = 1.3
"""Acceptance: maze's epoch time with load at most this many times its idle time."""
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
BUSY_LOOP = "while True: pass"

PPO_KEYS = (
    f"algorithm.n_epochs={EPOCHS}",
    f"algorithm.epoch_length={UPDATES_PER_EPOCH}",
    f"algorithm.n_rollout_steps={N_STEPS}",
    f"algorithm.batch_size={BATCH}",
    f"algorithm.n_optimization_epochs={PASSES}",
    "algorithm.patience=0",
    "algorithm.rollout_evaluator.n_episodes=1",
    "runner=dev",
    f"runner.concurrency={N_ENVS}",
    "runner.progress=off",
)
CARTPOLE = (
    "-cn",
    "conf_train",
    "env.name=CartPole-v1",
    "algorithm=ppo",
    "model=vector_obs",
    "critic=template_state",
    "model.model_builder.modality_config.feature.block_params.hidden_units=[64]",
    "model.model_builder.modality_config.hidden.block_params.hidden_units=[64]",
    "model.model_builder.shared_embedding_keys=[]",
    *PPO_KEYS,
)
CUTTING = (
    "-cn",
    "conf_train",
    "env=tutorial_cutting_2d_struct_masked",
    "wrappers=tutorial_cutting_2d",
    "model=tutorial_cutting_2d_struct_masked",
    "algorithm=ppo",
    *PPO_KEYS,
)
CASES = {
    "maze": ("maze", CARTPOLE, ()),
    "maze (torch threads)": ("maze", CARTPOLE, ("runner.cpu_threads=null",)),
    "sb3": ("sb3", (), ()),
    "maze Cutting-2D": ("maze", CUTTING, ()),
}


def _child_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in THREAD_VARIABLES}
    env["MPLBACKEND"] = "Agg"
    return env


def _maze_epoch_seconds(args: tuple[str, ...], workdir: Path) -> float:
    run_dir = workdir / f"run-{time.monotonic_ns()}"
    maze_run = str(Path(sys.executable).parent / "maze-run")
    command = [maze_run, *args, f"hydra.run.dir={run_dir}"]
    result = subprocess.run(command, cwd=workdir, env=_child_env(), capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    summary = json.loads((run_dir / "training_summary.json").read_text())
    return summary["train_seconds"] / summary["epochs"]


def _sb3_epoch_seconds() -> float:
    command = [sys.executable, "-m", "tools.bench.busy_bench", "--sb3-child"]
    result = subprocess.run(command, cwd=ROOT, env=_child_env(), capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise RuntimeError(f"SB3 child failed:\n{result.stderr[-2000:]}")
    return float(result.stdout.strip().splitlines()[-1])


def _sb3_child() -> None:
    """Trains SB3 PPO for ``EPOCHS`` epochs of the shared workload; prints the seconds per epoch."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    env = make_vec_env("CartPole-v1", n_envs=N_ENVS, seed=0)
    model = PPO("MlpPolicy", env, n_steps=N_STEPS, batch_size=BATCH, n_epochs=PASSES, seed=0, device="cpu", verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=EPOCHS * UPDATES_PER_EPOCH * N_ENVS * N_STEPS)
    print((time.perf_counter() - start) / EPOCHS)


def measure(rounds: int, cases: dict[str, tuple] = CASES) -> dict[str, dict[str, list[float]]]:
    """Seconds per epoch of every case, ``{case: {"idle": [...], "busy": [...]}}``, interleaved over ``rounds``."""
    seconds: dict[str, dict[str, list[float]]] = {case: {"idle": [], "busy": []} for case in cases}
    with tempfile.TemporaryDirectory(prefix="maze-busy-bench-") as temp:
        workdir = Path(temp)
        for round_index in range(rounds):
            for condition in ("idle", "busy") if round_index % 2 == 0 else ("busy", "idle"):
                burners = [
                    subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(2 if condition == "busy" else 0)
                ]
                try:
                    for case, (tool, args, extra) in cases.items():
                        value = _sb3_epoch_seconds() if tool == "sb3" else _maze_epoch_seconds(args + extra, workdir)
                        seconds[case][condition].append(value)
                        print(f"round {round_index} {condition:4} {case:32} {value:6.2f} s/epoch", flush=True)
                finally:
                    for burner in burners:
                        burner.kill()
                        burner.wait()
    return seconds


def markdown(seconds: dict[str, dict[str, list[float]]], rounds: int) -> str:
    """The results table."""
    lines = [
        "# PPO epoch time on an idle and a busy machine",
        "",
        f"Machine: {machine()}, {os.cpu_count()} CPUs as seen by the process. Busy: two CPU-bound background "
        f"processes. One epoch: {UPDATES_PER_EPOCH} PPO updates of {N_ENVS} envs x {N_STEPS} steps "
        f"({UPDATES_PER_EPOCH * N_ENVS * N_STEPS} env steps), batch {BATCH}, {PASSES} passes; medians of {rounds} "
        "interleaved rounds of fresh processes. Target: maze busy/idle <= 1.3.",
        "",
        "| case | idle s/epoch | busy s/epoch | busy / idle |",
        "|---|---:|---:|---:|",
    ]
    for case, values in seconds.items():
        idle, busy = statistics.median(values["idle"]), statistics.median(values["busy"])
        lines.append(f"| {case} | {idle:.2f} | {busy:.2f} | {busy / idle:.2f}x |")
    return "\n".join(lines) + "\n"


def main(quick: bool = False, rounds: int = 1) -> None:
    """Measures every case and writes ``results/busy.md`` and ``results/busy.json`` (not with ``quick``)."""
    write = not quick
    seconds = measure(rounds)
    table = markdown(seconds, rounds)
    print(table)
    if write:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        (RESULTS_DIR / "busy.md").write_text(table, encoding="utf-8")
        payload = {"benchmark": "busy", "machine": machine(), "cpus": os.cpu_count(), "seconds_per_epoch": seconds}
        (RESULTS_DIR / "busy.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"written: {RESULTS_DIR / 'busy.md'}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--sb3-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    cli = parser.parse_args()
    if cli.sb3_child:
        _sb3_child()
    else:
        main(quick=cli.no_write, rounds=cli.rounds)
