"""maze's documented defaults against stable-baselines3's defaults, side by side, run in parts.

``python -m tools.bench --only defaults`` (or ``nox -s bench -- --only defaults``) runs every row on
seeds 1, 2 and 3 (about 30 CPU-hours). Parts::

    python -m tools.bench.defaults_bench --list
    python -m tools.bench.defaults_bench --rows PPO/LunarLander-v3 A2C/CartPole-v1 --seeds 1
    python -m tools.bench.defaults_bench --rows 'IMPALA/*' '*/thermostat'
    python -m tools.bench.defaults_bench --rows 'SAC/*' --seeds 1 2 --maze-only   # after a change to maze

A part merges its runs into the committed ``results/defaults.json`` (replacing the runs of the
same row, seed and tool, keeping all others) and rewrites ``results/defaults.md`` and one figure
per env (``results/defaults_<env>.png``), after every seed, so a stopped part keeps what it ran.

Each row trains one algorithm on one env for a budget of env steps:

* maze: ``maze-run -cn conf_train env.name=<id> algorithm=<algo> algorithm.max_env_steps=<budget>
  algorithm.rollout_evaluator.n_episodes=10 seeding.env_base_seed=S seeding.agent_base_seed=S
  hydra.run.dir=...`` and nothing else: the defaults pick the model, the critic and the epoch size
  (the thermostat: ``-cd examples/thermostat/conf -cn conf_thermostat`` in that folder; Cutting-2D:
  the masked structured env, its model and wrappers). A command that fails is recorded as failed.
* SB3 (``sb3_defaults``): the algorithm's defaults on one env, evaluated at every mark.

The maze run and the SB3 run of a seed run at the same time, one core each (``OMP_NUM_THREADS=1``).
IMPALA and Cutting-2D are maze only: IMPALA is held against SB3's A2C of its env, Cutting-2D
against the greedy heuristic; every row shows the mean return of a random policy.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Optional

from . import defaults_report
from .harness import RESULTS_DIR
from .lunar_bench import CurveRun, evaluation_curve, measured_run, run_together
from .sb3_defaults import THERMOSTAT, THERMOSTAT_DIR
from .train_bench import CHILD_ENV, ROOT, maze_run_executable

__all__ = ["ROWS", "Row", "main", "run_part"]

SEEDS = (1, 2, 3)
CUTTING = "Cutting-2D"
"""The env name of the maze-only Cutting-2D row (masked structured env of the tutorial)."""
CUTTING_CONFIG = (
    "env=tutorial_cutting_2d_struct_masked",
    "model=tutorial_cutting_2d_struct_masked",
    "wrappers=tutorial_cutting_2d",
)
RANDOM_EPISODES = 100
GREEDY_EPISODES = 10
EVAL_EPISODES = 10
N_MARKS = 10
RESULTS = RESULTS_DIR / "defaults.json"
EPOCH_LINE = re.compile(r"^epoch (\d+): ([\d,]+) env steps", re.MULTILINE)
"""The line a maze trainer prints after each epoch: the epoch's own env steps."""
ROLLOUT_MEAN = re.compile(r"rollout_stats\s+BaseEnvEvents\s+reward\s+mean\s+\|\s*(-?[\d.]+)")


@dataclass(frozen=True)
class Row:
    """One row of the table: an algorithm on an env for a budget.

    Attributes:
        algorithm: maze's algorithm as the table names it (``PPO``, ``A2C``, ``IMPALA``, ``SAC``).
        env: A gymnasium id, ``thermostat`` or ``Cutting-2D``.
        budget: Env steps.
        peer: The ``sb3_defaults --algorithm`` run beside maze (None: maze only).
        reference: The row whose SB3 runs maze is held against (None: its own; for maze-only rows
            without one, the greedy heuristic).
    """

    algorithm: str
    env: str
    budget: int
    peer: Optional[str] = None
    reference: Optional[str] = None

    @property
    def name(self) -> str:
        """``<algorithm>/<env>``, the name ``--rows`` takes."""
        return f"{self.algorithm}/{self.env}"

    @property
    def marks(self) -> list[int]:
        """The env steps at which the tools are compared: every tenth of the budget."""
        return [self.budget * i // N_MARKS for i in range(1, N_MARKS + 1)]


def _rows() -> tuple[Row, ...]:
    discrete = {"CartPole-v1": 100_000, "Acrobot-v1": 200_000, "LunarLander-v3": 500_000}
    continuous = {"Pendulum-v1": (300_000, 20_000), "MountainCarContinuous-v0": (300_000, 50_000)}
    continuous["LunarLanderContinuous-v3"] = (500_000, 200_000)
    rows: list[Row] = []
    for env, budget in discrete.items():
        rows += [Row("A2C", env, budget, "a2c"), Row("PPO", env, budget, "ppo")]
        rows.append(Row("IMPALA", env, budget, reference=f"A2C/{env}"))
    rows += [Row("A2C", THERMOSTAT, 200_000, "a2c"), Row("PPO", THERMOSTAT, 200_000, "ppo")]
    for env, (ppo_budget, sac_budget) in continuous.items():
        rows += [Row("PPO", env, ppo_budget, "ppo"), Row("SAC", env, sac_budget, "sac")]
    return (*rows, Row("PPO", CUTTING, 200_000))


ROWS = _rows()


def maze_command(row: Row, seed: int, run_dir: Path) -> tuple[list[str], Path]:
    """The documented ``maze-run`` command of ``row`` and the folder it runs in."""
    common = [
        f"algorithm={row.algorithm.lower()}",
        f"algorithm.max_env_steps={row.budget}",
        f"algorithm.rollout_evaluator.n_episodes={EVAL_EPISODES}",
        f"seeding.env_base_seed={seed}",
        f"seeding.agent_base_seed={seed}",
        f"hydra.run.dir={run_dir}",
    ]
    if row.env == THERMOSTAT:
        return [maze_run_executable(), "-cd", str(THERMOSTAT_DIR / "conf"), "-cn", "conf_thermostat", *common], (
            THERMOSTAT_DIR
        )
    env = list(CUTTING_CONFIG) if row.env == CUTTING else [f"env.name={row.env}"]
    return [maze_run_executable(), "-cn", "conf_train", *env, *common], ROOT


def maze_curve(run_dir: Path, spawned: float) -> list[list[float]]:
    """A maze run's evaluations with the env steps trained by then.

    maze writes no env-step count to TensorBoard, so the env steps come from the epoch lines of the
    run's ``maze_cli.log`` (each epoch's own env steps; without them, e.g. ``runner.progress=off``,
    ``training_summary.json``'s ``run_env_steps`` split evenly over its ``epochs``). Those before the
    first epoch (SAC's random steps filling the replay buffer) are the summary's ``env_steps`` minus
    the epochs' sum.
    """
    summary = json.loads(read_text(run_dir / "training_summary.json"))
    epochs = [int(steps.replace(",", "")) for _, steps in EPOCH_LINE.findall(read_text(run_dir / "maze_cli.log"))]
    if len(epochs) != summary["epochs"]:
        epochs = [summary["run_env_steps"] / summary["epochs"]] * summary["epochs"]
    cumulative = {epoch: sum(epochs[:epoch]) for epoch in range(1, len(epochs) + 1)}  # log step = epochs done
    return evaluation_curve(run_dir, spawned, lambda _: cumulative, summary["env_steps"] - sum(epochs))


def read_text(path: Path) -> str:
    """A text file's content (UTF-8, undecodable bytes replaced)."""
    return path.read_text(encoding="utf-8", errors="replace")


def run_maze(row: Row, seed: int, work_dir: Path) -> CurveRun:
    """One ``maze-run`` of ``row``; its training rate from the run's summary."""
    run_dir = work_dir / f"maze-{row.algorithm}-{row.env}-{seed}"
    command, cwd = maze_command(row, seed, run_dir)
    run = measured_run(row.name, "maze", seed, command, work_dir, lambda spawned: maze_curve(run_dir, spawned), cwd)
    if (run_dir / "training_summary.json").exists():
        run.env_steps_per_second = json.loads(read_text(run_dir / "training_summary.json"))["env_steps_per_second"]
    return run


def run_sb3(row: Row, seed: int, work_dir: Path) -> CurveRun:
    """One ``sb3_defaults`` run of ``row``'s peer; its curve and training rate from the child's JSON."""
    out = work_dir / f"sb3-{row.algorithm}-{row.env}-{seed}.json"
    command = [sys.executable, "-m", "tools.bench.sb3_defaults", "--algorithm", row.peer, "--env", row.env]
    command += ["--budget", str(row.budget), "--seed", str(seed), "--marks", str(row.marks[0]), "--out", str(out)]
    result: dict = {}

    def curve(spawned: float) -> list[list[float]]:
        result.update(json.loads(read_text(out)))
        return [[steps, at - spawned, mean] for steps, at, mean in result["curve"]]

    run = measured_run(row.name, "sb3", seed, command, work_dir, curve)
    run.env_steps_per_second = result.get("env_steps_per_second")
    return run


def run_seed(row: Row, seed: int, work_dir: Path, commit: str) -> list[CurveRun]:
    """``row``'s maze run of ``seed`` and, at the same time, its SB3 run (where it has a peer)."""
    jobs = [lambda: run_maze(row, seed, work_dir)]
    if row.peer is not None:
        jobs.append(lambda: run_sb3(row, seed, work_dir))
    return reported(row, run_together(jobs), commit)


def run_maze_pair(row: Row, seeds: Sequence[int], work_dir: Path, commit: str) -> list[CurveRun]:
    """``row``'s maze runs of one or two seeds at the same time (``--maze-only``).

    Two maze runs load the machine as a maze run and an SB3 run do, one core each.
    """
    jobs = [lambda seed=seed: run_maze(row, seed, work_dir) for seed in seeds]
    return reported(row, run_together(jobs), commit)


def reported(row: Row, runs: list[CurveRun], commit: Optional[str]) -> list[CurveRun]:
    """``runs`` stamped with ``commit``, each with a progress line printed."""
    for run in runs:
        run.commit = commit
        print(f"  {row.name} {run.tool} seed {run.seed}: {defaults_report.one_line(row, run)}", flush=True)
    return runs


def random_return(env_id: str, episodes: int, seed: int = 0) -> float:
    """The mean return of uniformly random actions over ``episodes`` episodes (in this process)."""
    from .sb3_defaults import make_env

    env, total = make_env(env_id), 0.0
    env.action_space.seed(seed)
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        done = False
        while not done:
            _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            total += float(reward)
            done = terminated or truncated
    env.close()
    return total / episodes


def rollout_return(policy: str, episodes: int, work_dir: Path) -> float:
    """The mean return of ``maze-run -cn conf_rollout policy=<policy>`` on the Cutting-2D row's env."""
    env, _, wrappers = CUTTING_CONFIG  # a rollout takes no model
    command = [maze_run_executable(), "-cn", "conf_rollout", env, wrappers, f"policy={policy}"]
    command += ["runner=sequential", f"runner.n_episodes={episodes}", "runner.record_trajectory=false"]
    command += ["runner.record_event_logs=false", "seeding.env_base_seed=0", "seeding.agent_base_seed=0"]
    command.append(f"hydra.run.dir={work_dir / f'rollout-{policy}'}")
    output = subprocess.run(command, cwd=ROOT, env=os.environ | CHILD_ENV, capture_output=True, text=True)
    found = ROLLOUT_MEAN.search(output.stdout)
    if output.returncode != 0 or found is None:
        raise RuntimeError(f"rollout of {policy} failed:\n{output.stdout[-2000:]}\n{output.stderr[-2000:]}")
    return float(found.group(1))


def baselines_of(envs: Sequence[str], known: dict, work_dir: Path, episodes: int = RANDOM_EPISODES) -> dict:
    """``known`` with the random (and, for Cutting-2D, greedy) mean return of every env in ``envs`` it lacks."""
    result = dict(known)
    for env in dict.fromkeys(envs):
        if env in result:
            continue
        print(f"  random baseline of {env}: {episodes} episodes ...", flush=True)
        if env == CUTTING:
            greedy = rollout_return("tutorial_cutting_2d_greedy_policy", GREEDY_EPISODES, work_dir)
            result[env] = {"random": rollout_return("random_policy", episodes, work_dir), "greedy": greedy}
        else:
            result[env] = {"random": random_return(env, episodes)}
    return result


def git_commit() -> Optional[str]:
    """``git describe --always --dirty`` of the repository (None outside a checkout)."""
    found = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    return found.stdout.strip() or None


def load() -> tuple[list[CurveRun], dict]:
    """The committed runs and baselines (none before the first part)."""
    if not RESULTS.exists():
        return [], {}
    payload = json.loads(read_text(RESULTS))
    return [CurveRun(**run) for run in payload["runs"]], payload.get("baselines", {})


def merged(kept: list[CurveRun], new: list[CurveRun]) -> list[CurveRun]:
    """``kept`` without the runs ``new`` replaces (same row, seed and tool), plus ``new``; in the rows' order."""
    replaced = {(run.case, run.seed, run.tool) for run in new}
    runs = [run for run in kept if (run.case, run.seed, run.tool) not in replaced] + new
    order = [row.name for row in ROWS]
    return sorted(runs, key=lambda run: (order.index(run.case) if run.case in order else len(order), run.seed))


def pairs(seeds: Sequence[int]) -> list[Sequence[int]]:
    """``seeds`` two at a time (the last alone if their number is odd)."""
    return [seeds[start : start + 2] for start in range(0, len(seeds), 2)]


def run_part(rows: Sequence[Row], seeds: Sequence[int], maze_only: bool = False) -> None:
    """Runs ``rows`` on ``seeds`` and merges them into the committed results (rewritten after every seed).

    ``maze_only``: only maze's runs, two seeds at a time; the committed SB3 runs are kept (for a
    change to maze: an SB3 run of a seed is the same on the same CPU).
    """
    kept, baselines = load()
    new: list[CurveRun] = []
    commit = git_commit()
    tools = "maze only" if maze_only else "maze and SB3"
    print(
        f"\nDefaults benchmark: {[row.name for row in rows]}, seeds {list(seeds)}, {tools} (commit {commit}) ...",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="maze-defaults-bench-") as tmp:
        baselines = baselines_of([row.env for row in ROWS], baselines, Path(tmp))  # cheap: the table's every row
        for row in rows:
            if maze_only:
                parts = [partial(run_maze_pair, row, pair) for pair in pairs(seeds)]
            else:
                parts = [partial(run_seed, row, seed) for seed in seeds]
            for part in parts:
                new += part(Path(tmp), commit)
                defaults_report.write(ROWS, merged(kept, new), baselines, RESULTS_DIR)
    print(defaults_report.markdown(ROWS, merged(kept, new), baselines))


def quick() -> None:
    """A smoke run: PPO on CartPole-v1 for 20k env steps, seed 1; the table is printed, nothing kept."""
    row = Row("PPO", "CartPole-v1", 20_000, "ppo")
    print(f"\nDefaults benchmark (--quick: {row.name}, {row.budget:,} env steps, seed 1; nothing written) ...")
    with tempfile.TemporaryDirectory(prefix="maze-defaults-quick-") as tmp:
        baselines = baselines_of([row.env], {}, Path(tmp), episodes=10)
        runs = run_seed(row, 1, Path(tmp), git_commit())
        figures = defaults_report.write((row,), runs, baselines, Path(tmp))  # exercises the writers, then dropped
        print(defaults_report.markdown((row,), runs, baselines))
        print(f"(figures drawn and dropped: {', '.join(path.name for path in figures)})")


def chosen(patterns: Sequence[str]) -> list[Row]:
    """The rows whose names match one of ``patterns`` (case-insensitive; ``*`` globs, e.g. ``PPO/*``)."""
    rows = [row for row in ROWS if any(fnmatch.fnmatch(row.name.lower(), pattern.lower()) for pattern in patterns)]
    if not rows:
        raise SystemExit(f"no row matches {list(patterns)}; the rows (--list): {', '.join(row.name for row in ROWS)}")
    return rows


def main(quick_run: bool = False) -> None:
    """``python -m tools.bench --only defaults``: every row on every seed (``quick_run``: the smoke run)."""
    if quick_run:
        quick()
    else:
        run_part(ROWS, SEEDS)


def cli() -> None:
    """``[--rows NAME ...] [--seeds S ...] [--list] [--quick]``: runs a part of the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", metavar="NAME", help="rows to run (default: all); globs such as 'PPO/*'")
    parser.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS), help="seeds to run (default: 1 2 3)")
    parser.add_argument("--list", action="store_true", help="print the rows' names and budgets, and exit")
    parser.add_argument("--quick", action="store_true", help="a smoke run that writes nothing")
    parser.add_argument(
        "--maze-only",
        action="store_true",
        help="run maze only, two seeds at a time, keeping the committed SB3 runs (after a change to maze)",
    )
    args = parser.parse_args()
    if args.list:
        for row in ROWS:
            against = f"SB3 runs of {row.reference}" if row.reference else "the greedy heuristic"
            peer = f"SB3 {row.peer.upper()}" if row.peer else f"maze only, against {against}"
            print(f"{row.name:34} {row.budget:>9,} env steps  {peer}")
    elif args.quick:
        quick()
    else:
        run_part(chosen(args.rows) if args.rows else ROWS, args.seeds, args.maze_only)


if __name__ == "__main__":
    cli()
