"""Helpers of the ``maze-run`` training tests: run the console script, read run directories."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from maze.train.core.checkpoints import TRAINING_STATE_FILE, find_checkpoint
from maze.train.tensorboard import read_scalars


def cartpole(algorithm: str = "ppo") -> tuple[str, ...]:
    """The documented CartPole training command with ``algorithm`` (without runner, budget and seeds)."""
    return (
        "-cn",
        "conf_train",
        "env.name=CartPole-v1",
        f"algorithm={algorithm}",
        "model=vector_obs",
        "critic=template_state",
    )


SHORT_EPOCHS = ("algorithm.epoch_length=2", "algorithm.n_rollout_steps=32")
"""Epochs of two short updates: enough to exercise rollouts, updates, evaluation and checkpointing."""

CUTTING_ENV = ("env=tutorial_cutting_2d_struct_masked", "wrappers=tutorial_cutting_2d")
"""The masked structured Cutting-2D env with the tutorial's wrappers."""

CUTTING_MASKED = (
    "-cn",
    "conf_train",
    *CUTTING_ENV,
    "model=tutorial_cutting_2d_struct_masked",
    "algorithm=ppo",
    "runner=dev",
)
"""PPO on the masked structured Cutting-2D env (the tutorial's configs)."""

BEST_MODEL_LINE = "-> new overall best model"

EPOCH_START = "********** Iteration"

EVAL_REWARD_MEAN = "eval_BaseEnvEvents/reward/mean"


@dataclass(frozen=True)
class TrainingRun:
    """A finished ``maze-run`` training job: its run directory and its process (with the output)."""

    run_dir: Path
    result: subprocess.CompletedProcess


def seeds(seed: int) -> tuple[str, str]:
    """Overrides that seed the envs and the agent with ``seed``."""
    return f"seeding.env_base_seed={seed}", f"seeding.agent_base_seed={seed}"


def maze_run_executable() -> str:
    """The installed ``maze-run`` console script (next to this interpreter, else on PATH)."""
    found = shutil.which("maze-run", path=str(Path(sys.executable).parent)) or shutil.which("maze-run")
    assert found, "the maze-run console script is not installed"
    return found


def maze_run_env() -> dict[str, str]:
    """The environment of a ``maze-run`` subprocess: one thread, no display, unbuffered output."""
    env = {key: value for key, value in os.environ.items() if key != "HYDRA_FULL_ERROR"}
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    return env


def maze_run_command(*args: str, run_dir: Path) -> list[str]:
    """The ``maze-run`` command line of a job writing into ``run_dir``."""
    return [maze_run_executable(), *args, f"hydra.run.dir={run_dir}"]


def maze_run(*args: str, run_dir: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs ``maze-run`` (from ``run_dir``'s parent) and returns the finished process with its output."""
    return subprocess.run(
        maze_run_command(*args, run_dir=run_dir),
        cwd=run_dir.parent,
        env=maze_run_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_maze_run(*args: str, run_dir: Path) -> tuple[subprocess.Popen, queue.Queue[Optional[str]]]:
    """Starts ``maze-run`` (as :func:`maze_run` does) and a thread that reads its merged output line by line.

    Returns:
        The process and the queue of its output lines (``None`` once the output ended).
    """
    process = subprocess.Popen(
        maze_run_command(*args, run_dir=run_dir),
        cwd=run_dir.parent,
        env=maze_run_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[Optional[str]] = queue.Queue()

    def read_lines() -> None:
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read_lines, daemon=True).start()
    return process, lines


def assert_success(result: subprocess.CompletedProcess) -> None:
    """The job exited 0 without a traceback (the output tail is shown otherwise)."""
    assert result.returncode == 0, f"exit code {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert "Traceback" not in result.stderr, result.stderr


def training_summary(run_dir: Path) -> dict[str, Any]:
    """The run's ``training_summary.json``."""
    return json.loads((run_dir / "training_summary.json").read_text())


def checkpoint_file(run_dir: Path, name: str) -> Path:
    """A file of the newest complete checkpoint (``checkpoint-<epoch>/``) of a run directory."""
    checkpoint = find_checkpoint(run_dir, follow_origin=False)
    assert checkpoint is not None, f"{run_dir} holds no complete checkpoint"
    return checkpoint.path(name)


def training_state(run_dir: Path) -> dict[str, Any]:
    """The ``training_state.yaml`` of the newest complete checkpoint of a run directory."""
    import yaml

    return yaml.safe_load(checkpoint_file(run_dir, TRAINING_STATE_FILE).read_text())


def best_model_scores(output: str) -> list[float]:
    """The scores of the ``-> new overall best model X!`` lines, in order."""
    return [
        float(line.split(BEST_MODEL_LINE, 1)[1].strip().rstrip("!"))
        for line in output.splitlines()
        if BEST_MODEL_LINE in line
    ]


def console_table_rows(output: str, prefix: str, topic: str, event: str) -> list[int]:
    """The steps of the console statistics rows ``<step>|<prefix> <topic> <event> ...|<value>``, in order."""
    steps = []
    for line in output.splitlines():
        cells = line.split("|")
        if len(cells) == 3 and cells[1].split()[:3] == [prefix, topic, event]:
            steps.append(int(cells[0]))
    return steps


def scalar_series(run_dir: Path, tag: str) -> list[float]:
    """The values of one TensorBoard scalar of the run, by step."""
    scalars = read_scalars(run_dir)
    assert tag in scalars, f"no scalar {tag!r}; the run has {sorted(scalars)}"
    return [value for _, value in sorted(scalars[tag])]


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file below ``directory`` (relative path -> content), to prove a run was left untouched.

    Temporary entries (hidden ``*.tmp``/``*.old`` names, e.g. of a save that was killed) are no outputs: a
    resume deletes them when their writer is gone.
    """
    files = {}
    for path in directory.rglob("*"):
        relative = path.relative_to(directory)
        temporary = any(part.startswith(".") and part.endswith((".tmp", ".old")) for part in relative.parts)
        if path.is_file() and not temporary:
            files[str(relative)] = path.read_bytes()
    return files
