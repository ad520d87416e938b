"""Time to solve CartPole-v1 with PPO: Maze on RLlib vs plain RLlib vs ``maze-run`` PPO.

Needs maze-rllib (``ray[rllib]``) next to maze-rl; reuses the training benchmark's harness
(:mod:`tools.bench.train_bench`): one fresh subprocess per run, whole-command wall time, runs
interleaved per seed, all stopping at the first deterministic evaluation of 20 episodes with a
mean of at least 475 (budget 200,000 env steps).

* Maze on RLlib: ``maze-run -cn conf_rllib rllib/algorithm=ppo model=vector_obs`` (Maze env,
  Maze template model and action distributions, RLlib's PPO; sampling in the driver).
* Maze env on RLlib: the same with ``model=rllib`` and RLlib's tuned CartPole model (the network of the
  plain run), so that the rates compare the Maze env and evaluation path alone.
* plain RLlib: the same PPO settings, RLlib's tuned CartPole model (:mod:`tools.bench.rllib_cartpole`).
* maze PPO: ``+experiment=cartpole_ppo_fast`` with ``runner=dev``.

Target: Maze's wrapping costs at most 1.2× plain RLlib's env-steps/s (plain rate / Maze-env-on-RLlib rate,
same network); the Maze model's cost is reported beside it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from .harness import RESULTS_DIR, machine
from .rllib_cartpole import EVAL_EPISODES, MAX_ENV_STEPS, TARGET_REWARD
from .train_bench import SEEDS, Commands, interleaved_runs, maze_command, maze_run_executable
from .train_report import RunResult, per_run_table, rate_ratio, summarize_tools, time_ratio, tool_table

__all__ = ["main", "run"]

TOOLS = {
    "maze_rllib": "maze-run -cn conf_rllib PPO (Maze env + model on RLlib)",
    "maze_env_rllib": "maze-run -cn conf_rllib PPO, model=rllib (Maze env, RLlib's tuned model)",
    "rllib": "plain RLlib PPO (tuned CartPole model)",
    "ppo": "maze-run PPO (fast experiment)",
}
COST_TARGET = 1.2


RLLIB_TUNED_MODEL = (
    "model=rllib",
    "model.fcnet_hiddens=[32]",
    "model.fcnet_activation=linear",
    "model.vf_share_layers=true",
)
"""``model=rllib`` with RLlib's tuned CartPole model (:data:`tools.bench.rllib_cartpole.MODEL`)."""


def maze_rllib_command(
    executable: str, seed: int, run_dir: Path, model: tuple[str, ...] = ("model=vector_obs",)
) -> list[str]:
    """The Maze-on-RLlib run of a seed (``model``: the model overrides)."""
    return [
        executable,
        "-cn",
        "conf_rllib",
        "env.name=CartPole-v1",
        "rllib/algorithm=ppo",
        *model,
        f"seeding.env_base_seed={seed}",
        f"seeding.agent_base_seed={seed}",
        f"algorithm.target_reward={TARGET_REWARD}",
        f"algorithm.eval_episodes={EVAL_EPISODES}",
        f"algorithm.max_env_steps={MAX_ENV_STEPS}",
        "runner.verbose=false",
        f"hydra.run.dir={run_dir}",
    ]


def run(seeds: tuple[int, ...]) -> list[RunResult]:
    """Runs the three tools per seed, interleaved; returns the runs in order."""
    executable = maze_run_executable()

    def commands(seed: int, work_dir: Path) -> Commands:
        rllib_dir, env_dir, plain_out, ppo_dir = (
            work_dir / f"maze-rllib-{seed}",
            work_dir / f"maze-env-rllib-{seed}",
            work_dir / f"rllib-{seed}.json",
            work_dir / f"ppo-{seed}",
        )
        env_only = maze_rllib_command(executable, seed, env_dir, RLLIB_TUNED_MODEL)
        plain = [sys.executable, "-m", "tools.bench.rllib_cartpole", "--seed", str(seed), "--out", str(plain_out)]
        return {
            "maze_rllib": (maze_rllib_command(executable, seed, rllib_dir), rllib_dir / "training_summary.json"),
            "maze_env_rllib": (env_only, env_dir / "training_summary.json"),
            "rllib": (plain, plain_out),
            "ppo": (maze_command(executable, seed, ppo_dir), ppo_dir / "training_summary.json"),
        }

    return interleaved_runs(seeds, "maze-rllib-bench-", commands)


def markdown(title: str, results: list[RunResult], command: str) -> str:
    """The per-tool table, the wrapping cost against plain RLlib and the per-run table."""
    tools = summarize_tools(results, TOOLS)
    maze_rllib, maze_env, plain = tools["maze_rllib"], tools["maze_env_rllib"], tools["rllib"]
    rates = rate_ratio(plain, maze_env)
    model_rates = rate_ratio(plain, maze_rllib)
    times = time_ratio(maze_rllib, plain)
    met = rates is not None and rates <= COST_TARGET
    lines = [
        f"### {title}",
        "",
        *tool_table(tools, TOOLS),
        "",
        "| Maze on RLlib vs plain RLlib | ratio | target | met |",
        "|---|---:|---|---|",
        f"| wrapping cost (same network): plain env-steps/s / Maze-env-on-RLlib env-steps/s | "
        f"{'—' if rates is None else f'{rates:.2f}×'} | ≤ {COST_TARGET}× | {'yes' if met else '**no**'} |",
        f"| with the Maze model: plain env-steps/s / Maze-on-RLlib env-steps/s | "
        f"{'—' if model_rates is None else f'{model_rates:.2f}×'} | — | — |",
        f"| time to solve, Maze on RLlib / plain RLlib | {'—' if times is None else f'{times:.2f}×'} | — | — |",
        "",
        *per_run_table(results),
        "",
        f"Time to solve: wall time of the whole command until the first deterministic evaluation with a mean return "
        f"≥ {TARGET_REWARD} over {EVAL_EPISODES} episodes (∞: not solved within {MAX_ENV_STEPS:,} env steps for the "
        "RLlib runs). Env-steps/s: env steps / seconds in RLlib's training iterations (sampling and learning; "
        "evaluation excluded). All RLlib runs sample in the driver process (num_env_runners=0) with the same PPO "
        "settings; the Maze model is the vector_obs template model (128-unit tanh layers, separate critic), the "
        "model=rllib run and plain RLlib use RLlib's tuned CartPole model (32 linear units, shared value layers). "
        "Each RLlib run starts its own local Ray (included in the wall time). `OMP_NUM_THREADS=1`.",
        "",
        f"Maze-on-RLlib command (seed 0): `{command}`",
        "",
        f"Machine: {machine()}.",
        "",
    ]
    return "\n".join(lines)


def main(quick: bool) -> None:
    """Runs the benchmark, prints the table and (unless ``quick``) writes ``results/rllib.*``."""
    seeds = SEEDS[:1] if quick else SEEDS
    title = "Time to solve CartPole-v1 with PPO: Maze on RLlib vs plain RLlib vs maze-run PPO"
    print(f"\n{title}: seeds {list(seeds)}, interleaved, one subprocess per run ...", flush=True)
    results = run(seeds)
    command = " ".join(maze_rllib_command("maze-run", seeds[0], Path("<tmp>/maze-rllib-<seed>")))
    text = markdown(title, results, command)
    print(text)
    if not quick:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        payload = {
            "benchmark": "rllib",
            "machine": machine(),
            "maze_rllib_command": command,
            "runs": [asdict(result) for result in results],
        }
        (RESULTS_DIR / "rllib.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        (RESULTS_DIR / "rllib.md").write_text(text, encoding="utf-8")
        print(f"written: {RESULTS_DIR / 'rllib.md'} and {RESULTS_DIR / 'rllib.json'}")
