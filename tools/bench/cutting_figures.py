"""The Cutting-2D tutorial's figures (seed-inventory §15), reproduced with the documented commands.

``python -m tools.bench --only cutting`` runs the tutorial's training commands with a stated
budget and writes ``results/cutting.md``/``.json``: our figures beside the seeds'.

* Part 4, flat env (``env=tutorial_cutting_2d_basic``, PPO): the seeds print the ``train`` reward
  statistics at log step 12, after 12 epochs of 8,000 env steps (96,000); our PPO defaults collect
  20,480 env steps per epoch, so 12 epochs are 245,760 env steps (the table states both). The seeds
  give one run; a run of ours spreads by about as much as their std, so part 4 runs on seeds 0, 1
  and 2 and the table adds the median over them. The tutorial's command turns PPO's reward scaling
  off for this env (``algorithm.reward_scaling=false``; docs/benchmarks.md has the measurement).
* Part 8, structured "simple problem" (``env=tutorial_cutting_2d_struct`` and ``_struct_masked``,
  PPO): the seeds say the reward approaches the optimum of 31 raw pieces per 180-step episode
  (reward -31) and that masking helps; we report the deterministic evaluation per epoch.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from maze.train.tensorboard import read_scalars

from .harness import RESULTS_DIR, machine
from .train_bench import CHILD_ENV, maze_run_executable

__all__ = ["CASES", "main"]


@dataclass(frozen=True)
class Case:
    """One documented command, its budget in epochs, and what the seeds report for it."""

    name: str
    overrides: str
    epochs: int
    seed_figure: str
    seeds: tuple[int, ...] = (0,)
    algorithm_overrides: str = ""
    """Keys of ``algorithm`` the documented command sets (after ``algorithm=ppo``)."""


CASES = (
    Case(
        "part 4: flat env, PPO",
        "env=tutorial_cutting_2d_basic wrappers=tutorial_cutting_2d_basic model=tutorial_cutting_2d_basic",
        12,
        "train reward mean -186.45 (std 34.2, min -259, max -130) after 96,000 env steps; 24.3 s per 8,000-step epoch",
        seeds=(0, 1, 2),
        algorithm_overrides="algorithm.reward_scaling=false",
    ),
    Case(
        "part 8b: structured env, PPO",
        "env=tutorial_cutting_2d_struct wrappers=tutorial_cutting_2d model=tutorial_cutting_2d_struct",
        4,
        "the reward approaches the optimum -31 (31 raw pieces in 180 steps); many invalid actions early on",
    ),
    Case(
        "part 8d: structured env with action masks, PPO",
        "env=tutorial_cutting_2d_struct_masked wrappers=tutorial_cutting_2d model=tutorial_cutting_2d_struct_masked",
        4,
        "masking avoids the invalid actions and learns faster than 8b",
    ),
)


@dataclass
class Figures:
    """What one run reached (train statistics of the last epoch, evaluation per epoch)."""

    case: str
    seed: int
    command: str
    epochs: int
    env_steps: int
    train_reward: dict[str, float]
    eval_reward_per_epoch: list[float]
    seconds_per_epoch: float


def _last(scalars: dict[str, list[tuple[int, float]]], tag: str) -> float:
    return sorted(scalars[tag])[-1][1]


def run_case(executable: str, case: Case, epochs: int, seed: int, work_dir: Path) -> Figures:
    """Trains one documented command on ``seed`` for ``epochs`` epochs and reads its figures from TensorBoard."""
    run_dir = work_dir / f"{case.name.split(':')[0].replace(' ', '-')}-seed{seed}"
    arguments = ["-cn", "conf_train", *case.overrides.split(), "algorithm=ppo", *case.algorithm_overrides.split()]
    arguments += ["runner=dev", f"algorithm.n_epochs={epochs}"]
    arguments += [f"seeding.env_base_seed={seed}", f"seeding.agent_base_seed={seed}"]
    print(f"  {case.name}, seed {seed}: {epochs} epochs ...", flush=True)
    subprocess.run(
        [executable, *arguments, f"hydra.run.dir={run_dir}"],
        check=True,
        capture_output=True,
        env={**os.environ, **CHILD_ENV},
    )
    scalars = read_scalars(run_dir)
    summary = json.loads((run_dir / "training_summary.json").read_text(encoding="utf-8"))
    train = {stat: _last(scalars, f"train_BaseEnvEvents/reward/{stat}") for stat in ("mean", "std", "min", "max")}
    return Figures(
        case=case.name,
        seed=seed,
        command="maze-run " + " ".join(arguments),
        epochs=summary["epochs"],
        env_steps=summary["env_steps"],
        train_reward=train,
        eval_reward_per_epoch=[value for _, value in sorted(scalars["eval_BaseEnvEvents/reward/mean"])],
        seconds_per_epoch=_last(scalars, "train_ActorCriticEvents/time_epoch"),
    )


def markdown(results: list[Figures]) -> str:
    """Our figures beside the seeds' (one row per documented command and seed; medians of several seeds below)."""
    seed_figures = {case.name: case.seed_figure for case in CASES}
    lines = [
        "### Cutting-2D tutorial figures (seed-inventory §15), reproduced",
        "",
        "| command | seed | budget | train reward, last epoch: mean (std, min, max) "
        "| deterministic eval mean per epoch | s per epoch | the seeds |",
        "|---|---:|---|---|---|---:|---|",
    ]
    for figures in results:
        train = figures.train_reward
        evals = ", ".join(f"{value:.1f}" for value in figures.eval_reward_per_epoch)
        lines.append(
            f"| {figures.case} | {figures.seed} | {figures.epochs} epochs, {figures.env_steps:,} env steps "
            f"| {train['mean']:.2f} ({train['std']:.1f}, {train['min']:.0f}, {train['max']:.0f}) | {evals} | "
            f"{figures.seconds_per_epoch:.1f} | {seed_figures[figures.case]} |"
        )
    lines.append("")
    for case in CASES:
        runs = [figures for figures in results if figures.case == case.name]
        if len(runs) > 1:
            means = [figures.train_reward["mean"] for figures in runs]
            seeds = ", ".join(str(figures.seed) for figures in runs)
            each = ", ".join(f"{mean:.2f}" for mean in means)
            lines += [
                f"{case.name}, seeds {seeds}: train reward mean of the last epoch, "
                f"median {statistics.median(means):.2f}, mean {statistics.mean(means):.2f} (each: {each}).",
                "",
            ]
    lines += [
        "Commands (`runner=dev`, documented PPO defaults otherwise: 10 updates of 8 envs x 256 steps "
        "per epoch = 20,480 env steps; the structured env's env step is two sub-steps; the flat env's "
        "documented command turns reward scaling off):",
        "",
        *[f"- `{figures.command}`" for figures in results],
        "",
        f"Machine: {machine()}.",
    ]
    return "\n".join(lines) + "\n"


def main(quick: bool = False) -> None:
    """Runs every case (one epoch each with ``quick``, nothing written) and writes ``results/cutting.*``."""
    executable = maze_run_executable()
    print("\nCutting-2D tutorial figures: the documented training commands ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="maze-cutting-figures-") as tmp:
        results = [
            run_case(executable, case, 1 if quick else case.epochs, seed, Path(tmp))
            for case in CASES
            for seed in (case.seeds[:1] if quick else case.seeds)
        ]
    table = markdown(results)
    print(table)
    if not quick:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        (RESULTS_DIR / "cutting.md").write_text(table, encoding="utf-8")
        payload = {"benchmark": "cutting", "machine": machine(), "runs": [asdict(figures) for figures in results]}
        (RESULTS_DIR / "cutting.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"written: {RESULTS_DIR / 'cutting.md'}")
