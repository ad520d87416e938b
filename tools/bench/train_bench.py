"""Time-to-solve CartPole-v1: ``maze-run`` PPO against stable-baselines3 PPO, one subprocess per run.

Each run is a fresh command, timed from process start to exit (start-up, imports, env and
model construction, training and evaluations included). Runs alternate between the tools
(maze seed 0, SB3 seed 0, maze seed 1, ...) so machine noise hits both alike.

* maze: ``maze-run -cn conf_train env.name=CartPole-v1 algorithm=ppo ... +experiment=cartpole_ppo_fast``
  (the tuned PPO settings live in that one experiment config; extra overrides are appended).
  The runner writes ``<run dir>/training_summary.json``.
* SB3: ``python -m tools.bench.sb3_cartpole --seed <s>`` (RL-Zoo hyperparameters, see that module).

Both stop at the first deterministic evaluation (20 episodes) whose mean return is at least 475.
Peak RSS is the child's ``ru_maxrss`` from ``os.wait4`` on its pid: the largest resident set
of that process (or of a descendant it waited for), not a sum and not other runs' peak.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .train_report import RunResult, markdown, summarize, write_results

__all__ = [
    "SEEDS",
    "TARGET_REWARD",
    "ChildStats",
    "interleaved_runs",
    "maze_command",
    "maze_vs_peer_runs",
    "measure_child",
    "run",
    "main",
]

ROOT = Path(__file__).resolve().parents[2]
SEEDS = (0, 1, 2)
TARGET_REWARD = 475
EVAL_EPISODES = 20
MAZE_EXPERIMENT = "cartpole_ppo_fast"
RUN_TIMEOUT_S = 900
LOG_TAIL_LINES = 25
CHILD_ENV = {"OMP_NUM_THREADS": "1"}


@dataclass(frozen=True)
class ChildStats:
    """What the parent measures about one finished child process.

    Attributes:
        exit_code: The child's exit code (negative: killed by that signal).
        wall_seconds: Wall time from spawning the process to reaping it.
        peak_rss_mib: The child's own peak resident set size in MiB (``ru_maxrss``).
        timed_out: True when the parent killed it after the timeout.
    """

    exit_code: int
    wall_seconds: float
    peak_rss_mib: float
    timed_out: bool


def measure_child(command: list[str], log_path: Path, timeout_s: float = RUN_TIMEOUT_S, cwd: Path = ROOT) -> ChildStats:
    """Runs ``command`` to completion with stdout and stderr in ``log_path`` and measures it.

    Args:
        command: The program and its arguments.
        log_path: File that receives the child's combined output.
        timeout_s: The child is killed after this many seconds.
        cwd: The child's working directory (default: the repository root).

    Returns:
        The child's exit code, wall time, peak RSS and whether it timed out.
    """
    killed = threading.Event()
    start = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=cwd, env=os.environ | CHILD_ENV, stdout=log, stderr=subprocess.STDOUT)

    def kill() -> None:
        killed.set()
        process.kill()

    timer = threading.Timer(timeout_s, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        timer.cancel()
    wall_seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return ChildStats(process.returncode, wall_seconds, usage.ru_maxrss / 1024, killed.is_set())


def maze_run_executable() -> str:
    """The ``maze-run`` console script on PATH, or a clear exit when maze-rl is not installed."""
    executable = shutil.which("maze-run")
    if executable is None:
        raise SystemExit(
            "train benchmark: `maze-run` (the maze-rl console script) is not on PATH; install it with "
            "`pip install -c tools/constraints.txt packages/maze-rl` or run `nox -s bench`"
        )
    return executable


def maze_command(
    executable: str,
    seed: int,
    run_dir: Path,
    overrides: tuple[str, ...] = (),
    algorithm: str = "ppo",
    runner: str = "dev",
    experiment: str = MAZE_EXPERIMENT,
) -> list[str]:
    """The ``maze-run`` command line of one benchmark run.

    Args:
        executable: Path of the ``maze-run`` script.
        seed: Env and agent base seed.
        run_dir: Hydra run directory (receives ``training_summary.json``).
        overrides: Extra Hydra overrides appended last (they win over the defaults here).
        algorithm: The ``algorithm`` config group option.
        runner: The ``runner`` config group option.
        experiment: The experiment config with the tuned settings.

    Returns:
        The argument list.
    """
    return [
        executable,
        "-cn",
        "conf_train",
        "env.name=CartPole-v1",
        f"algorithm={algorithm}",
        "model=vector_obs",
        "critic=template_state",
        f"runner={runner}",
        f"seeding.env_base_seed={seed}",
        f"seeding.agent_base_seed={seed}",
        f"algorithm.target_reward={TARGET_REWARD}",
        f"algorithm.rollout_evaluator.n_episodes={EVAL_EPISODES}",
        f"+experiment={experiment}",
        f"hydra.run.dir={run_dir}",
        *overrides,
    ]


def sb3_command(seed: int, out: Path) -> list[str]:
    """The command line of one stable-baselines3 run writing its result to ``out``."""
    return [sys.executable, "-m", "tools.bench.sb3_cartpole", "--seed", str(seed), "--out", str(out)]


def measured_run(tool: str, seed: int, command: list[str], summary_path: Path, work_dir: Path) -> RunResult:
    """Runs one benchmark command and joins the parent's measurements with the child's summary.

    A failed child (non-zero exit, timeout, or no readable summary) becomes an unsolved
    run carrying the reason; the tail of its log is printed to stderr.

    Args:
        tool: ``maze`` or ``sb3``.
        seed: Seed of the run.
        command: The command line to run.
        summary_path: The JSON file the child writes its training summary to.
        work_dir: Folder for the child's log.

    Returns:
        The run's result.
    """
    log_path = work_dir / f"{tool}-{seed}.log"
    stats = measure_child(command, log_path)
    summary: dict[str, float | int | bool] = {}
    error = None
    if stats.timed_out:
        error = f"killed after {RUN_TIMEOUT_S} s"
    elif stats.exit_code != 0:
        error = f"exit code {stats.exit_code}"
    else:
        try:
            summary = json.loads(summary_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            error = f"no readable {summary_path.name}: {exc}"
    if error is not None:
        tail = log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-LOG_TAIL_LINES:]
        print(f"{tool} seed {seed} failed ({error}); log tail:\n" + "\n".join(tail), file=sys.stderr)
    return RunResult(
        tool=tool,
        seed=seed,
        solved=bool(summary.get("solved", False)),
        wall_seconds=stats.wall_seconds,
        peak_rss_mib=stats.peak_rss_mib,
        env_steps=summary.get("env_steps"),
        train_seconds=summary.get("train_seconds"),
        env_steps_per_second=summary.get("env_steps_per_second"),
        best_eval_reward=summary.get("best_eval_reward"),
        error=error,
    )


Commands = dict[str, tuple[list[str], Path]]
"""Tool -> (command line, path of the summary JSON it writes) of one seed."""


def interleaved_runs(
    seeds: tuple[int, ...],
    prefix: str,
    commands: Callable[[int, Path], Commands],
    after_seed: Optional[Callable[[int, Path], None]] = None,
) -> list[RunResult]:
    """Runs every tool's command once per seed, the tools alternating, in a temporary work directory.

    Args:
        seeds: The seeds, in order.
        prefix: Prefix of the temporary work directory.
        commands: ``(seed, work_dir)`` -> the seed's commands, in the order to run them.
        after_seed: Called with ``(seed, work_dir)`` after the seed's runs (e.g. to read their run dirs).

    Returns:
        One result per (seed, tool), in run order.
    """
    results: list[RunResult] = []
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work_dir = Path(tmp)
        for seed in seeds:
            for tool, (command, summary_path) in commands(seed, work_dir).items():
                print(f"  {tool} seed {seed} ...", end=" ", flush=True)
                result = measured_run(tool, seed, command, summary_path, work_dir)
                print(result.one_line(), flush=True)
                results.append(result)
            if after_seed is not None:
                after_seed(seed, work_dir)
    return results


def run(seeds: tuple[int, ...], maze_overrides: tuple[str, ...] = ()) -> list[RunResult]:
    """Runs maze and SB3 once per seed, interleaved, and returns the runs in order.

    Args:
        seeds: Seeds to run for both tools.
        maze_overrides: Extra Hydra overrides for every ``maze-run`` command.

    Returns:
        One result per (seed, tool).
    """
    executable = maze_run_executable()
    return maze_vs_peer_runs(
        seeds,
        "train",
        lambda seed, run_dir: maze_command(executable, seed, run_dir, maze_overrides),
        "sb3",
        sb3_command,
    )


def maze_vs_peer_runs(
    seeds: tuple[int, ...],
    name: str,
    maze_command_of: Callable[[int, Path], list[str]],
    peer: str,
    peer_command_of: Callable[[int, Path], list[str]],
) -> list[RunResult]:
    """Runs a ``maze-run`` command and a peer's command once per seed, interleaved (maze first).

    Args:
        seeds: The seeds, in order.
        name: The benchmark's name (for the temporary work directory).
        maze_command_of: ``(seed, run_dir)`` -> the maze command writing ``run_dir/training_summary.json``.
        peer: The peer's tool name.
        peer_command_of: ``(seed, out)`` -> the peer's command writing its result to ``out``.

    Returns:
        One result per (seed, tool), in run order.
    """

    def commands(seed: int, work_dir: Path) -> Commands:
        run_dir, peer_out = work_dir / f"maze-{seed}", work_dir / f"{peer}-{seed}.json"
        return {
            "maze": (maze_command_of(seed, run_dir), run_dir / "training_summary.json"),
            peer: (peer_command_of(seed, peer_out), peer_out),
        }

    return interleaved_runs(seeds, f"maze-{name}-bench-", commands)


def main(quick: bool, maze_overrides: tuple[str, ...] = ()) -> None:
    """Runs the benchmark, prints the tables and (unless ``quick``) writes ``results/train.*``.

    Args:
        quick: One seed and no result files: a smoke run.
        maze_overrides: Extra Hydra overrides for every ``maze-run`` command.
    """
    seeds = SEEDS[:1] if quick else SEEDS
    title = "Time to solve CartPole-v1: maze-run PPO vs stable-baselines3 PPO (RL-Zoo)"
    print(f"\n{title}: seeds {list(seeds)}, interleaved, one subprocess per run ...", flush=True)
    results = run(seeds, maze_overrides)
    summary = summarize(results)
    command = " ".join(maze_command("maze-run", seeds[0], Path("<tmp>/maze-<seed>"), maze_overrides))
    print(markdown(title, summary, results, command))
    if not quick:
        path = write_results("train", title, summary, results, command)
        print(f"written: {path} and {path.with_suffix('.json')}")
