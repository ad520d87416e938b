"""Time to reach -200 on Pendulum-v1: ``maze-run`` SAC against stable-baselines3 SAC, one subprocess per run.

Both use RL-Zoo's SAC settings for Pendulum-v1 (see ``sb3_pendulum`` and maze's
``+experiment=pendulum_sac``: one env, 100 random steps, then one gradient step of batch 256
per env step, i.e. the same update-to-data ratio, the same networks (SB3's MlpPolicy: 256x256
ReLU policy and Q networks, the action concatenated to the observation at the Q networks'
input), learning rate 1e-3, entropy coefficient tuned from 1.0), a budget of 20,000 env steps
and a deterministic evaluation of 10 episodes after 1,100, 2,100, ... env steps in both tools (the
100 random steps, then every 1,000); a run stops at the first evaluation with a mean of -200 or more. Runs alternate between the tools (maze seed 0, SB3 seed 0, ...)
and are measured like the PPO benchmark (``train_bench``): whole-command wall time, the
child's peak RSS, and the training summary each child writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .train_bench import maze_run_executable, maze_vs_peer_runs
from .train_report import (
    TOOLS,
    Ratio,
    RunResult,
    TrainSummary,
    markdown,
    rate_ratio,
    summarize_tools,
    time_ratio,
    write_results,
)

__all__ = ["SEEDS", "main", "maze_command", "run", "summarize"]

SEEDS = (0, 1, 2)
TARGET_REWARD = -200
MAX_TIME_RATIO = 0.5
LABELS = {"maze": "maze-run SAC", "sb3": "stable-baselines3 SAC (RL-Zoo)"}
NOTES = (
    "Time to -200: wall time of the whole command (process start to exit: start-up, imports, "
    "construction, training and evaluations) until the first deterministic evaluation with a mean "
    "return ≥ -200 over 10 episodes; a seed that never gets there within 20,000 env steps counts as "
    "not solved (∞). Env steps at stop include the 100 random steps before learning. Env-steps/s: env "
    "steps / seconds in rollouts and gradient steps, evaluation excluded. Both tools evaluate after 1,100, "
    "2,100, ... env steps: maze after each epoch of 1,000 iterations (the first starts after the 100 random "
    "steps), SB3 with its evaluation grid shifted by its 100 random steps (`first_eval_after`). Runs "
    "alternate maze/SB3 per seed, one subprocess each, `OMP_NUM_THREADS=1`."
)


def maze_command(executable: str, seed: int, run_dir: Path) -> list[str]:
    """The ``maze-run`` command line of one benchmark run."""
    return [
        executable,
        "-cn",
        "conf_train",
        "env.name=Pendulum-v1",
        "algorithm=sac",
        "model=vector_obs",
        "critic=template_state_action",
        f"seeding.env_base_seed={seed}",
        f"seeding.agent_base_seed={seed}",
        "+experiment=pendulum_sac",
        f"hydra.run.dir={run_dir}",
    ]


def sb3_command(seed: int, out: Path) -> list[str]:
    """The command line of one stable-baselines3 run writing its result to ``out``."""
    return [sys.executable, "-m", "tools.bench.sb3_pendulum", "--seed", str(seed), "--out", str(out)]


def run(seeds: tuple[int, ...]) -> list[RunResult]:
    """Runs maze and SB3 once per seed, interleaved; returns the runs in order."""
    executable = maze_run_executable()
    return maze_vs_peer_runs(
        seeds, "sac", lambda seed, run_dir: maze_command(executable, seed, run_dir), "sb3", sb3_command
    )


def summarize(results: list[RunResult]) -> TrainSummary:
    """Per-tool summaries and the maze / SB3 ratios (time target: ≤ 0.5× with every maze seed at -200)."""
    tools = summarize_tools(results, TOOLS)
    maze, sb3 = tools["maze"], tools["sb3"]
    time, rate = time_ratio(maze, sb3), rate_ratio(maze, sb3)
    ratios = [
        Ratio(
            "time to -200 (median)",
            time,
            f"≤ {MAX_TIME_RATIO:g}×, every maze seed at -200 within 20k env steps",
            time is not None and time <= MAX_TIME_RATIO and maze.all_solved,
        ),
        Ratio("env-steps/s (median)", rate, "—", rate is not None),
    ]
    return TrainSummary(tools, ratios)


def main(quick: bool) -> None:
    """Runs the benchmark, prints the tables and (unless ``quick``) writes ``results/sac.*``."""
    seeds = SEEDS[:1] if quick else SEEDS
    title = "Time to -200 on Pendulum-v1: maze-run SAC vs stable-baselines3 SAC (RL-Zoo)"
    print(f"\n{title}: seeds {list(seeds)}, interleaved, one subprocess per run ...", flush=True)
    results = run(seeds)
    summary = summarize(results)
    command = " ".join(maze_command("maze-run", seeds[0], Path("<tmp>/maze-<seed>")))
    print(markdown(title, summary, results, command, LABELS, NOTES))
    if not quick:
        path = write_results("sac", title, summary, results, command, LABELS, NOTES)
        print(f"written: {path} and {path.with_suffix('.json')}")
