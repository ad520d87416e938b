"""What the peer runs of the time-to-solve benchmarks share: learn until solved, report JSON, the command line.

Each peer module (``ars_cartpole``, ``sb3_cartpole``, ``sb3_pendulum``) builds its model and an
evaluation callback that keeps ``eval_seconds``, ``best_mean_reward`` and ``evaluations``; this
module times ``learn`` and writes the one JSON line the benchmark harness reads.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["learn_and_report", "main"]

PeerResult = dict[str, float | int | bool]
"""The JSON result of one peer run (the keys the benchmark harness reads)."""


def learn_and_report(
    model: Any, callback: Any, total_timesteps: int, target_reward: float, stop: tuple[type[BaseException], ...] = ()
) -> PeerResult:
    """Runs ``model.learn`` with ``callback`` and returns the run's result.

    Args:
        model: An SB3 (or sb3-contrib) algorithm.
        callback: Its evaluation callback (``eval_seconds``, ``best_mean_reward``, ``evaluations``).
        total_timesteps: The env-step budget.
        target_reward: The evaluation mean that counts as solved.
        stop: Exceptions the callback raises to end training once solved.

    Returns:
        solved, env steps, training seconds (evaluation excluded), env steps/s, evaluation and learn
        seconds, best evaluation mean and number of evaluations.
    """
    start = time.perf_counter()
    try:
        model.learn(total_timesteps=total_timesteps, callback=callback)
    except stop:
        pass
    learn_seconds = time.perf_counter() - start
    train_seconds = learn_seconds - callback.eval_seconds
    return {
        "solved": bool(callback.best_mean_reward >= target_reward),
        "env_steps": int(model.num_timesteps),
        "train_seconds": train_seconds,
        "env_steps_per_second": model.num_timesteps / train_seconds,
        "eval_seconds": callback.eval_seconds,
        "learn_seconds": learn_seconds,
        "best_eval_reward": float(callback.best_mean_reward),
        "evaluations": callback.evaluations,
    }


def main(train: Callable[[int], PeerResult], description: str) -> None:
    """The peer's command line: ``--seed S [--out FILE]``; prints (and writes) the JSON result of ``train(S)``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--seed", type=int, required=True, help="seed of the run")
    parser.add_argument("--out", type=Path, help="also write the JSON result to this file")
    args = parser.parse_args()
    line = json.dumps(train(args.seed))
    if args.out is not None:
        args.out.write_text(line + "\n", encoding="utf-8")
    print(line)
