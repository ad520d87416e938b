"""Resumable training state: what a run directory needs so that ``input_dir=`` continues a run.

Every epoch end (not only improvements) a trainer writes, next to the best model:

* ``training_state.yaml``: epochs and env steps trained so far, the best evaluation score,
  the trainer class and the names of the restorable state dicts;
* ``optimizer.pt``: the optimizer state plus any other state the trainer declares in
  :meth:`ResumableTrainer.extra_state_dicts` (schedulers, entropy coefficients, ...), as a
  tensors-only nested state dict. Optimizers whose state holds plain numbers (``torch.optim``)
  are not saved; a resume starts them fresh (maze's own ``Adam`` is tensors-only).

Both files are written atomically, so a run killed at any moment stays resumable. A run
started with ``input_dir`` restores them and reports what it restored; the epoch and
env-step counters continue, so ``n_epochs`` counts the total.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import yaml
from maze.env.errors import ConfigurationError
from maze.env.utils.files import atomic_write_bytes
from maze.perception.serialization import check_tensors_only, load_state_dict_file, save_state_dict

__all__ = ["OPTIMIZER_FILE", "TRAINING_STATE_FILE", "ResumableTrainer", "TrainingResult", "TrainingState"]

OPTIMIZER_FILE = "optimizer.pt"
"""The optimizer (and other trainer) state next to the best model."""

TRAINING_STATE_FILE = "training_state.yaml"
"""Epochs, env steps and the best score next to the best model."""


@dataclass
class TrainingResult:
    """What a call of a trainer's ``train`` achieved.

    Attributes:
        epochs: Epochs trained in total (including those of a resumed run).
        env_steps: Env steps collected in total (all envs).
        train_seconds: Seconds spent in rollouts and updates in this call (evaluation excluded).
        best_reward: The best evaluation score so far (-inf without evaluations).
        solved: ``target_reward`` was reached.
        stop_reason: Why training stopped.
        sub_steps: Sub-steps collected in total (env steps times the sub-steps of one env
            step of a structured env; None where the trainer does not count them).
    """

    epochs: int
    env_steps: int
    train_seconds: float
    best_reward: float
    solved: bool
    stop_reason: str
    sub_steps: Optional[int] = None


@dataclass
class TrainingState:
    """The plain-data part of a run's resumable state (``training_state.yaml``).

    Attributes:
        epochs: Epochs trained in total.
        env_steps: Env steps collected in total.
        best_reward: The best evaluation score (-inf if none).
        trainer: The class name of the trainer that wrote it.
        state_dicts: Names of the state dicts in ``optimizer.pt`` (``optimizer`` and extras).
    """

    epochs: int = 0
    env_steps: int = 0
    best_reward: float = float("-inf")
    trainer: Optional[str] = None
    state_dicts: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> TrainingState:
        """Reads ``training_state.yaml``.

        Raises:
            ConfigurationError: The file is no valid YAML mapping of the expected keys.
        """
        try:
            values = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            return cls(
                epochs=int(values.get("epochs", 0)),
                env_steps=int(values.get("env_steps", 0)),
                best_reward=float("-inf") if values.get("best_reward") is None else float(values["best_reward"]),
                trainer=values.get("trainer"),
                state_dicts=list(values.get("state_dicts", [])),
            )
        except (yaml.YAMLError, AttributeError, TypeError, ValueError) as error:
            raise ConfigurationError(
                f"{str(path)!r} is not a valid training state ({type(error).__name__}: {error}); delete it to "
                "warm-start from the model only"
            ) from None

    def save(self, path: Path) -> None:
        """Writes the state atomically as YAML."""
        values = {
            "epochs": self.epochs,
            "env_steps": self.env_steps,
            "best_reward": self.best_reward if math.isfinite(self.best_reward) else None,
            "trainer": self.trainer,
            "state_dicts": self.state_dicts,
        }
        atomic_write_bytes(path, yaml.safe_dump(values, sort_keys=False).encode("utf-8"))


class ResumableTrainer:
    """Mixin of trainers whose state is saved every epoch and restored from ``input_dir``.

    The trainer provides ``optimizer`` (with ``state_dict``/``load_state_dict``),
    ``epochs_done``, ``best_reward`` and the :attr:`env_steps` property; it may add state
    with :meth:`extra_state_dicts` / :meth:`load_extra_state_dicts`. ``state_dir`` (set by
    the runner) is where :meth:`save_training_state` writes at every epoch end.
    """

    optimizer: Any
    epochs_done: int
    best_reward: float
    state_dir: Optional[Path] = None

    @property
    def env_steps(self) -> int:
        """Env steps collected in total."""
        raise NotImplementedError

    @env_steps.setter
    def env_steps(self, value: int) -> None:
        raise NotImplementedError

    def extra_state_dicts(self) -> dict[str, Mapping[str, Any]]:
        """Further tensors-only state dicts to save with the optimizer (name -> state dict)."""
        return {}

    def load_extra_state_dicts(self, state_dicts: Mapping[str, Mapping[str, Any]]) -> None:
        """Restores what :meth:`extra_state_dicts` saved."""

    def load_optimizer_state(self, state: Mapping[str, Any]) -> None:
        """Loads a saved optimizer state (trainers may check that it fits first).

        Raises:
            Exception: Any error of a state that does not fit (the caller starts the optimizer fresh).
        """
        self.optimizer.load_state_dict(state)

    def save_training_state(self, directory: Optional[Union[str, Path]] = None) -> None:
        """Writes ``optimizer.pt`` and ``training_state.yaml`` atomically (default: into ``state_dir``)."""
        directory = Path(directory) if directory is not None else self.state_dir
        if directory is None:
            return
        optimizer_state = self.optimizer.state_dict()
        if not _holds_tensors_only(optimizer_state):  # e.g. torch.optim: plain numbers in param_groups
            optimizer_state = None
        state_dicts = {**({"optimizer": optimizer_state} if optimizer_state else {}), **self.extra_state_dicts()}
        if state_dicts:
            save_state_dict(state_dicts, directory / OPTIMIZER_FILE)
        TrainingState(self.epochs_done, self.env_steps, self.best_reward, type(self).__name__, list(state_dicts)).save(
            directory / TRAINING_STATE_FILE
        )

    def restore_training_state(self, directory: Path) -> list[str]:
        """Restores what a run directory's resumable state holds (the model is loaded by the runner).

        A run of the same trainer is *resumed*: epochs, env steps, best score, optimizer and
        extra state continue. A run of another trainer (e.g. BC before PPO fine-tuning) is a
        *warm start*: the counters and the best score (of another objective) start fresh, and
        only an optimizer state that fits is taken. Foreign or missing parts are skipped with
        a note.

        Returns:
            What was restored, for the log line.
        """
        state_file = directory / TRAINING_STATE_FILE
        state = TrainingState.load(state_file) if state_file.is_file() else TrainingState()
        same_trainer = state.trainer == type(self).__name__
        restored: list[str] = []
        if same_trainer:
            self.epochs_done, self.env_steps = state.epochs, state.env_steps
            self.best_reward = max(self.best_reward, state.best_reward)
            restored.append(f"epoch {state.epochs}, {state.env_steps} env steps, best score {state.best_reward:.3f}")
        else:
            restored.append(
                f"warm start from a {state.trainer or 'model-only'} run (counters and best score start fresh)"
            )
        optimizer_file = directory / OPTIMIZER_FILE
        if optimizer_file.is_file():
            restored.extend(self._restore_state_dicts(load_state_dict_file(optimizer_file), same_trainer))
        return restored

    def _restore_state_dicts(self, saved: Mapping[str, Any], same_trainer: bool) -> list[str]:
        """Loads the optimizer (and extra) state dicts that fit; returns their names."""
        if "exp_avg" in saved:  # a plain optimizer state dict (older runs)
            saved = {"optimizer": saved}
        restored = []
        if "optimizer" in saved:
            try:
                self.load_optimizer_state(saved["optimizer"])
                restored.append("optimizer state")
            except Exception as error:  # parameters of another model or algorithm: start the optimizer fresh
                print(f"Note: the optimizer state of input_dir does not fit this model ({error}); starting it fresh")
        extra = {name: value for name, value in saved.items() if name != "optimizer"}
        if extra and same_trainer:
            self.load_extra_state_dicts(extra)
            restored.extend(extra)
        return restored


def _holds_tensors_only(state: Mapping[str, Any]) -> bool:
    """Whether a state dict can be saved as a tensors-only checkpoint."""
    try:
        check_tensors_only(state)
    except ConfigurationError:
        return False
    return True
