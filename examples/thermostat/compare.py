"""Runs the README's comparison: PPO and SAC on the thermostat with and without the guide's remedies.

Usage (in this folder): ``python compare.py [--out-dir outputs/compare]``. Each variant is one
``maze-run`` command (printed before it runs) with the budget of its experiment config and seed
1234; the table at the end gives each variant's best evaluation return per episode in the env's
own reward units (a scaled run's score divided by its scale) and its wall time, start-up and
evaluation included. About 5 minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEST = re.compile(r"best evaluation score (-?\d+(?:\.\d+)?)")
RANDOM_MEAN = re.compile(r"^\s*\d+\|rollout_stats\s+BaseEnvEvents\s+reward\s+mean\s+\|\s*(-?[\d.]+)", re.MULTILINE)

VARIANTS: list[tuple[str, str, float]] = [
    ("PPO (thermostat_ppo)", "+experiment=thermostat_ppo", 1.0),
    ("PPO, rewards x 0.1", "+experiment=thermostat_ppo +wrappers.RewardScalingWrapper.scale=0.1", 0.1),
    ("PPO, observations normalized", "+experiment=thermostat_ppo wrappers=thermostat_normalized", 1.0),
    ("PPO, absolute temperatures", "+experiment=thermostat_ppo env.absolute_temperatures=true", 1.0),
    ("SAC (thermostat_sac)", "+experiment=thermostat_sac", 1.0),
    ("SAC, rewards x 0.1", "+experiment=thermostat_sac +wrappers.RewardScalingWrapper.scale=0.1", 0.1),
    ("SAC, rewards x 0.01", "+experiment=thermostat_sac +wrappers.RewardScalingWrapper.scale=0.01", 0.01),
]


def maze_run(arguments: str, run_dir: Path) -> tuple[str, float]:
    """Runs ``maze-run -cd conf <arguments>`` in this folder; returns its output and wall time."""
    command = [str(Path(sys.executable).parent / "maze-run"), "-cd", "conf", *arguments.split()]
    command.append(f"hydra.run.dir={run_dir}")
    print("$", " ".join(command[1:]), flush=True)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=HERE, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    return result.stdout + result.stderr, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=HERE / "outputs" / "compare")
    out_dir = parser.parse_args().out_dir.resolve()
    shutil.rmtree(out_dir, ignore_errors=True)
    output, seconds = maze_run(
        "-cn conf_thermostat_rollout runner=sequential runner.n_episodes=100", out_dir / "random"
    )
    rows = [("random policy (100 episodes, mean)", float(RANDOM_MEAN.search(output).group(1)), seconds)]
    for index, (name, arguments, scale) in enumerate(VARIANTS):
        output, seconds = maze_run(f"-cn conf_thermostat {arguments} runner.progress=off", out_dir / str(index))
        rows.append((name, float(BEST.search(output).group(1)) / scale, seconds))
    print("\n| run | best evaluation return | wall time |\n|---|---|---|")
    for name, value, seconds in rows:
        print(f"| {name} | {value:.1f} | {seconds:.0f} s |")


if __name__ == "__main__":
    main()
