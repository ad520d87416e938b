"""Trains a tiny PPO run and exports it to ONNX: the policies the tests and the benchmark serve.

Needs maze-rl and maze-perception[onnx] (torch): ``python tiny_run.py <run dir> [cartpole|cutting]``
writes the run into ``<run dir>`` and its export into ``<run dir>/onnx``, and prints the latter.

* ``cartpole`` (default): two PPO epochs of two short updates (about 10 s): the deterministic
  policy balances for 100-500 steps, the sampling one for fewer, so seeded episodes differ in length.
* ``cutting``: one PPO update on the masked structured Cutting-2D env (about 3 s): an env whose
  states are Python objects and that can simulate, for the ``maze_state`` and ``recommend`` routes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["COMMANDS", "CUTTING_COMMAND", "TRAINING_COMMAND", "train_and_export"]

TRAINING_COMMAND = (
    *("-cn", "conf_train", "env.name=CartPole-v1", "algorithm=ppo", "model=vector_obs", "critic=template_state"),
    *("runner=dev", "algorithm.n_epochs=2", "algorithm.epoch_length=2", "algorithm.n_rollout_steps=32"),
    *("algorithm.rollout_evaluator.n_episodes=4", "seeding.env_base_seed=0", "seeding.agent_base_seed=0"),
)
"""The ``maze-run`` arguments of the tiny CartPole run (without ``hydra.run.dir``)."""

CUTTING_COMMAND = (
    *("-cn", "conf_train", "env=tutorial_cutting_2d_struct_masked", "wrappers=tutorial_cutting_2d"),
    *("model=tutorial_cutting_2d_struct_masked", "algorithm=ppo", "runner=dev", "algorithm.n_epochs=1"),
    *("algorithm.epoch_length=1", "algorithm.n_rollout_steps=16", "algorithm.rollout_evaluator.n_episodes=1"),
    *("seeding.env_base_seed=0", "seeding.agent_base_seed=0"),
)
"""The ``maze-run`` arguments of the tiny Cutting-2D run."""

COMMANDS = {"cartpole": TRAINING_COMMAND, "cutting": CUTTING_COMMAND}


def train_and_export(run_dir: Path, python: str = sys.executable, env: str = "cartpole") -> Path:
    """Trains the tiny ``env`` run (a key of :data:`COMMANDS`) into ``run_dir`` and exports it; returns ``run_dir / "onnx"``.

    ``maze-run`` is the one next to ``python``.

    Raises:
        subprocess.CalledProcessError: Training or the export failed (their output is shown).
    """
    maze_run = shutil.which("maze-run", path=str(Path(python).parent)) or "maze-run"
    child_env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    for command in (
        [maze_run, *COMMANDS[env], f"hydra.run.dir={run_dir}"],
        [python, "-m", "maze.perception.export", str(run_dir)],
    ):
        subprocess.run(command, check=True, env=child_env, cwd=run_dir.parent, stdout=subprocess.DEVNULL, timeout=600)
    return run_dir / "onnx"


if __name__ == "__main__":
    print(train_and_export(Path(sys.argv[1]).resolve(), env=sys.argv[2] if len(sys.argv) > 2 else "cartpole"))
