"""Run the benchmark suite: ``python -m tools.bench [--quick] [--only NAME]`` (or ``nox -s bench``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from . import (
    bc_bench,
    busy_bench,
    cutting_figures,
    defaults_bench,
    deploy_bench,
    env_layer,
    es_bench,
    export_bench,
    hpo_bench,
    impala_bench,
    log_stats_bench,
    lunar_bench,
    policy_bench,
    ray_bench,
    recommend_bench,
    rllib_bench,
    rollout_bench,
    rollout_choice,
    sac_bench,
    sac_update_bench,
    tracking_bench,
    train_bench,
    trajectory_bench,
)
from .harness import MEMORY_NOTE, Row, markdown_table, write_results

NOTES = (
    "Steps per second on one core, measured interleaved in one process (median over rounds). "
    "Cost ratio = peer rate / case rate, the median of per-round ratios: 1.00× means no overhead over the peer. "
    + MEMORY_NOTE
)


@dataclass(frozen=True)
class Suite:
    """One benchmark table: its result file name, title and measuring function."""

    name: str
    title: str
    run: Callable[[int, int], list[Row]]
    notes: Callable[[list[Row]], str] = lambda rows: NOTES


SUITES = (
    Suite("env_layer", "Env-layer overhead (CartPole-v1, random actions)", env_layer.run),
    Suite("log_stats", "Statistics overhead (random actions)", log_stats_bench.run),
    Suite("policy", "Policy inference (vector_obs CartPole policy vs bare nn.Sequential)", policy_bench.run),
    Suite("rollout", "Rollout throughput (CartPole-v1, random policy)", rollout_bench.run, rollout_bench.notes),
    Suite(
        "sac_update",
        "SAC gradient steps (RL-Zoo networks: Pendulum-v1, LunarLanderContinuous-v3)",
        sac_update_bench.run,
        sac_update_bench.notes,
    ),
    Suite(
        "bc", "Behavioural cloning throughput (BCTrainer vs a hand-written torch loop)", bc_bench.run, bc_bench.notes
    ),
)

TRAIN = "train"
"""Time to solve against SB3 (subprocess runs with their own tables; takes the --maze-override options)."""

STANDALONE: dict[str, Callable[[bool], None]] = {
    "busy": busy_bench.main,  # PPO epoch time idle vs two CPU-bound background processes, maze vs SB3
    "cutting": cutting_figures.main,  # the Cutting-2D tutorial figures (seed-inventory §15), reproduced
    "defaults": defaults_bench.main,  # documented defaults vs SB3's defaults, 18 rows x 3 seeds (~30 CPU-hours; parts: defaults_bench --rows)
    "deploy": deploy_bench.main,  # act latency against the bare policy
    "es": es_bench.main,  # ES time-to-solve against sb3-contrib ARS
    "export": export_bench.main,  # ONNX export time of the CartPole policy (whole command; each exporter)
    "hpo": hpo_bench.main,  # sweep wall time, parallel launcher vs one after another
    "impala": impala_bench.main,  # IMPALA time-to-solve against SB3 and maze PPO
    "lunar": lunar_bench.main,  # PPO, A2C, IMPALA, SAC, ES on LunarLander at the RL-Zoo's budgets; SB3 beside PPO, A2C, SAC (~2.5 h)
    "ray": ray_bench.main,  # Ray rollouts and IMPALA actors against local processes, ~2 ms env steps; Ray start-up
    "recommend": recommend_bench.main,  # AgentDeployment.recommend latency on Cutting-2D, in-process vs 2 workers
    "rllib": rllib_bench.main,  # PPO time to solve CartPole: Maze on RLlib vs plain RLlib vs maze-run (needs maze-rllib)
    "rollout_choice": rollout_choice.main,  # maze-run -cn conf_rollout: runner=auto against sequential and parallel
    "sac": sac_bench.main,  # time to -200 on Pendulum against SB3 SAC
    "tracking": tracking_bench.main,  # the quick-start command with logger=mlflow / wandb against TensorBoard only
    "trajectories": trajectory_bench.main,  # trajectory files: data-only format vs pickles, write/read rates, bytes
}
"""Suites that run their own subprocesses and write their own tables: name -> ``main(quick)``."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few steps and rounds; a smoke run that writes no results")
    parser.add_argument(
        "--only", choices=[*(suite.name for suite in SUITES), TRAIN, *STANDALONE], help="run a single suite"
    )
    parser.add_argument(
        "--maze-override",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"extra maze-run override for the {TRAIN} suite (repeatable; applied after +experiment=...)",
    )
    args = parser.parse_args()
    n_steps, rounds = (5_000, 2) if args.quick else (100_000, 7)

    for suite in SUITES:
        if args.only and suite.name != args.only:
            continue
        print(f"\n{suite.title}: {n_steps} steps x {rounds} rounds per case ...", flush=True)
        rows = suite.run(n_steps, rounds)
        print(markdown_table(rows))
        if not args.quick:
            path = write_results(suite.name, suite.title, rows, suite.notes(rows))
            print(f"written: {path} and {path.with_suffix('.json')}")
    if args.only in (None, TRAIN):
        train_bench.main(args.quick, tuple(args.maze_override))
    for name, run in STANDALONE.items():
        if args.only in (None, name):
            run(args.quick)
    if args.quick:
        print("\n--quick: results not written (figures too noisy to keep)")


if __name__ == "__main__":
    main()
