"""Trains a tiny CartPole PPO run and exports it to ONNX: the policy the tests and the benchmark serve.

Needs maze-rl and maze-perception[onnx] (torch): ``python tiny_run.py <run dir>`` writes
the run into ``<run dir>`` and its export into ``<run dir>/onnx``, and prints the latter.
Two PPO epochs of two short updates (about 10 s): the deterministic policy balances for
100-500 steps, the sampling one for fewer, so seeded episodes differ in length.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["TRAINING_COMMAND", "train_and_export"]

TRAINING_COMMAND = (
    *("-cn", "conf_train", "env.name=CartPole-v1", "algorithm=ppo", "model=vector_obs", "critic=template_state"),
    *("runner=dev", "algorithm.n_epochs=2", "algorithm.epoch_length=2", "algorithm.n_rollout_steps=32"),
    *("algorithm.rollout_evaluator.n_episodes=4", "seeding.env_base_seed=0", "seeding.agent_base_seed=0"),
)
"""The ``maze-run`` arguments of the tiny run (without ``hydra.run.dir``)."""


def train_and_export(run_dir: Path, python: str = sys.executable) -> Path:
    """Trains into ``run_dir`` with ``maze-run`` next to ``python`` and exports it; returns ``run_dir / "onnx"``.

    Raises:
        subprocess.CalledProcessError: Training or the export failed (their output is shown).
    """
    maze_run = shutil.which("maze-run", path=str(Path(python).parent)) or "maze-run"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    for command in (
        [maze_run, *TRAINING_COMMAND, f"hydra.run.dir={run_dir}"],
        [python, "-m", "maze.perception.export", str(run_dir)],
    ):
        subprocess.run(command, check=True, env=env, cwd=run_dir.parent, stdout=subprocess.DEVNULL, timeout=600)
    return run_dir / "onnx"


if __name__ == "__main__":
    print(train_and_export(Path(sys.argv[1]).resolve()))
