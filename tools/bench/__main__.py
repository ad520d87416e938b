"""Run the benchmark suite: ``python -m tools.bench [--quick]`` (or ``nox -s bench``)."""

from __future__ import annotations

import argparse

from . import env_layer
from .harness import markdown_table, write_results

ENV_LAYER_NOTES = (
    "Random-action CartPole-v1 steps per second, one core, measured interleaved in one process "
    "(median over rounds). Cost ratio = peer rate / case rate, the median of per-round ratios: "
    "1.00× means no overhead over the peer."
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few steps and rounds; a smoke run that writes no results")
    args = parser.parse_args()
    n_steps, rounds = (5_000, 2) if args.quick else (100_000, 7)

    print(f"env layer: {n_steps} steps x {rounds} rounds per case ...", flush=True)
    rows = env_layer.run(n_steps=n_steps, rounds=rounds)
    print(markdown_table(rows))
    if args.quick:
        print("\n--quick: results not written (figures too noisy to keep)")
        return
    path = write_results("env_layer", "Env-layer overhead (CartPole-v1)", rows, ENV_LAYER_NOTES)
    print(f"\nwritten: {path} and {path.with_suffix('.json')}")


if __name__ == "__main__":
    main()
