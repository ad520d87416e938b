"""What a training run directory holds besides the checkpoints: summary, resume and warm-start inputs."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from maze.env.errors import ConfigurationError
from maze.perception.checkpoint import SPACES_CONFIG_FILE, STATE_DICT_FILE
from maze.perception.serialization import atomic_write_bytes, load_state_dict_file
from maze.train.core.checkpoints import (
    OPTIMIZER_FILE,
    ORIGIN_FILE,
    TRAINING_STATE_FILE,
    Checkpoint,
    clean_run_dir,
    find_checkpoint,
    read_origin,
)
from maze.train.core.training_state import TrainingResult, TrainingState

logger = logging.getLogger(__name__)

__all__ = ["InputRun", "SUMMARY_FILE", "describe_resumable_state", "write_training_summary"]

SUMMARY_FILE = "training_summary.json"
"""Written at the end of a training run, also an interrupted one: env steps (every actor of an env step acted once;
in total and in this run), sub-steps (null where a trainer does not count them), time, throughput, best score, solved,
stop reason."""


@dataclass
class InputRun:
    """A previous training run directory to resume or warm-start from (``input_dir=``).

    Attributes:
        directory: The run directory (its best model, spaces and statistics are used).
        best_reward: Its best evaluation score (-inf if unknown).
        trainer: The trainer class name that wrote it (None if unknown).
        last_weights: The file of its latest weights in the checkpoint (None: not written, e.g. by an older maze).
        checkpoint: Its newest complete checkpoint (None: a model-only directory). For a resumed
            run killed before its first save, the one of the run it had started from.
    """

    directory: Path
    best_reward: float = float("-inf")
    trainer: Optional[str] = None
    last_weights: Optional[str] = None
    checkpoint: Optional[Checkpoint] = None

    @classmethod
    def open(cls, input_dir: Any) -> Optional[InputRun]:
        """Checks ``input_dir`` (empty: None), deletes its stale temporary files and reads its newest checkpoint.

        A run directory without a checkpoint that was itself started from ``input_dir`` (a
        resumed run killed before its first save) continues from the run it had started from.

        Raises:
            ConfigurationError: If it is no directory, lacks the model files, or had started from
                a run that no longer holds a checkpoint.
        """
        if input_dir in (None, ""):
            return None
        directory = Path(str(input_dir)).expanduser()
        if not directory.is_dir():
            raise ConfigurationError(
                f"input_dir {str(directory)!r} does not exist; pass the output directory of a previous "
                "`maze-run -cn conf_train` run (outputs/<experiment>/<timestamp>)"
            )
        clean_run_dir(directory)  # e.g. what a kill mid-save left (best effort)
        origin = read_origin(directory)
        checkpoint = find_checkpoint(directory, report=logger.info)
        missing = [name for name in (STATE_DICT_FILE, SPACES_CONFIG_FILE) if not (directory / name).is_file()]
        if origin is not None and (checkpoint is None or checkpoint.run_dir != directory):
            return cls._continue_origin(directory, origin, checkpoint, missing)
        if missing:
            raise ConfigurationError(
                f"input_dir {str(directory)!r} is not a training run directory: it has no {' or '.join(missing)}. "
                "Pass the output directory of a previous `maze-run -cn conf_train` run"
            )
        return cls._with_checkpoint(directory, checkpoint)

    @classmethod
    def _with_checkpoint(cls, directory: Path, checkpoint: Optional[Checkpoint]) -> InputRun:
        run = cls(directory, checkpoint=checkpoint)
        state_file = None if checkpoint is None else checkpoint.path(TRAINING_STATE_FILE)
        if state_file is not None and state_file.is_file():
            state = TrainingState.load(state_file)
            run.best_reward, run.trainer, run.last_weights = state.best_reward, state.trainer, state.last_weights
        return run

    @classmethod
    def _continue_origin(
        cls, directory: Path, origin: Path, checkpoint: Optional[Checkpoint], missing: list[str]
    ) -> InputRun:
        """A run directory without a checkpoint of its own that had started from ``origin``.

        Raises:
            ConfigurationError: If neither it nor the runs it had started from hold a checkpoint.
        """
        if checkpoint is None:
            problem = "does not exist any more" if not origin.is_dir() else "holds no checkpoint either"
            raise ConfigurationError(
                f"input_dir {str(directory)!r} holds no checkpoint: its run stopped before its first save, and "
                f"{str(origin)!r}, the input_dir it had started from, {problem}. Resume from another run directory, "
                f"or delete {directory / ORIGIN_FILE} to start from the model of input_dir only"
            )
        logger.info(
            f"Note: input_dir {directory} holds no checkpoint: its run stopped before its first save. The newest "
            f"complete state is {checkpoint.describe()} (epoch {checkpoint.epoch}) of the run it had started from; "
            "continuing from it"
        )
        if missing:  # stopped before it wrote its model files: the run that holds the checkpoint is the input
            return cls._with_checkpoint(checkpoint.run_dir, checkpoint)
        return cls._with_checkpoint(directory, checkpoint)

    def is_resumed_by(self, trainer_class: type) -> bool:
        """Whether a run of ``trainer_class`` resumes this run (same trainer) rather than warm-starting from it."""
        return self.trainer == trainer_class.__name__

    def best_reward_for(self, trainer_class: type) -> float:
        """The run's best score if it was trained by ``trainer_class`` (a resume), else -inf (a warm start)."""
        return self.best_reward if self.is_resumed_by(trainer_class) else float("-inf")

    def latest_weights_for(self, trainer_class: type) -> Optional[Path]:
        """The latest weights a resume by ``trainer_class`` continues from.

        Returns:
            Their file, or None for a warm start (it starts from the best model, ``state_dict.pt``)
            and for a run directory that has none (written before maze kept them).
        """
        if not (self.is_resumed_by(trainer_class) and self.last_weights and self.checkpoint is not None):
            return None
        path = self.checkpoint.path(self.last_weights)
        return path if path.is_file() else None

    def saved_state_for(self, trainer_class: type, name: str) -> Optional[Mapping[str, Any]]:
        """The state dict ``name`` that the run saved with its optimizer, if ``trainer_class`` resumes it.

        For state a runner needs before it builds the trainer (which restores the rest later).

        Returns:
            The state dict, or None for a warm start and for a run that saved none of that name.
        """
        path = None if self.checkpoint is None else self.checkpoint.path(OPTIMIZER_FILE)
        if not (self.is_resumed_by(trainer_class) and path is not None and path.is_file()):
            return None
        state = load_state_dict_file(path).get(name)
        return state if isinstance(state, Mapping) else None


def write_training_summary(directory: Path, result: TrainingResult) -> Path:
    """Writes :data:`SUMMARY_FILE` (JSON) for tools and benchmarks; returns its path.

    ``env_steps`` counts all env steps of the run (a resumed run's included), ``run_env_steps`` those of
    this call, which ``train_seconds`` took: ``env_steps_per_second`` is their ratio.
    """
    seconds = result.train_seconds
    summary = {
        "env_steps": result.env_steps,
        "run_env_steps": result.run_env_steps,
        "sub_steps": result.sub_steps,
        "train_seconds": round(seconds, 6),
        "env_steps_per_second": round(result.run_env_steps / seconds, 1) if seconds else 0.0,
        "best_eval_reward": result.best_reward if result.best_reward != float("-inf") else None,
        "solved": result.solved,
        "epochs": result.epochs,
        "stop_reason": result.stop_reason,
    }
    path = directory / SUMMARY_FILE
    atomic_write_bytes(path, (json.dumps(summary, indent=2) + "\n").encode("utf-8"))
    return path


def describe_resumable_state(directory: Union[str, Path]) -> str:
    """What a stopped or interrupted training run directory holds to resume from, and how (for messages).

    Example: ``the best model state_dict.pt and the state after 3 epochs (checkpoint-3: last_state_dict.pt,
    optimizer.pt, training_state.yaml); resume training with input_dir=/runs/x``.
    """
    directory = Path(directory)
    checkpoint = find_checkpoint(directory)
    if checkpoint is None:
        return "no epoch has finished, so there is no training state to resume from yet"
    try:
        state = TrainingState.load(checkpoint.path(TRAINING_STATE_FILE))
    except (ConfigurationError, OSError) as error:
        return str(error)
    best = f"the best model {STATE_DICT_FILE} and " if (directory / STATE_DICT_FILE).is_file() else ""
    if checkpoint.run_dir.resolve() != directory.resolve():
        return (
            f"{best}no checkpoint of its own yet; the newest complete state is {checkpoint.describe()} (after "
            f"{state.epochs} epochs) of the run it had started from; resume training with input_dir={directory} "
            "(continues from it)"
        )
    names = (state.last_weights, OPTIMIZER_FILE, TRAINING_STATE_FILE)
    files = ", ".join(name for name in names if name and checkpoint.path(name).is_file())
    where = "" if checkpoint.legacy else f"{checkpoint.directory.name}: "
    return f"{best}the state after {state.epochs} epochs ({where}{files}); resume training with input_dir={directory}"
