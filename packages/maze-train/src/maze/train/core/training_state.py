"""Resumable training state: what a run directory needs so that ``input_dir=`` continues a run.

Every epoch end (not only improvements) a trainer writes, next to the best model
(``state_dict.pt``, kept for deployment, rollouts and warm starts), one checkpoint directory
``checkpoint-<epoch>/`` as one atomic unit (see :mod:`~maze.train.core.checkpoints`):

* ``last_state_dict.pt``: the model's weights at this epoch end (policy and critic; same
  tensors-only format as ``state_dict.pt``);
* ``optimizer.pt``: the optimizer state plus any other state the trainer declares in
  :meth:`ResumableTrainer.extra_state_dicts` (schedulers, entropy coefficients, ...), as a
  tensors-only nested state dict. Optimizers whose state holds plain numbers (``torch.optim``)
  are not saved; a resume starts them fresh (maze's own ``Adam`` is tensors-only);
* ``training_state.yaml``: epochs and env steps trained so far, the best evaluation score, the
  trainer class, the names of the restorable state dicts and the file of the latest weights;
* ``manifest.json``: the files' hashes, the epoch and the format.

A run killed at any moment stays resumable from the newest complete checkpoint, whose weights,
optimizer state and counters belong to one epoch; the last ``keep_checkpoints`` stay. A run
started with ``input_dir`` of the same trainer *resumes*: it continues from the latest weights
(not the best ones, which may be up to ``patience`` epochs older than the optimizer state),
restores the rest and reports what it restored; the epoch and env-step counters continue, so
``n_epochs`` counts the total. Run directories of the earlier flat layout (the three files next
to ``state_dict.pt``) resume the same way.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import yaml
from maze.env.errors import ConfigurationError
from maze.env.utils.files import atomic_write_bytes
from maze.env.utils.untrusted_files import UntrustedFileError, load_untrusted_yaml
from maze.perception.agent.torch_model import TorchModel
from maze.perception.serialization import check_tensors_only, load_state_dict_file, state_dict_bytes
from maze.train.core.budget import RunBudget
from maze.train.core.checkpoints import (
    CHECKPOINT_PREFIX,
    DEFAULT_KEEP_CHECKPOINTS,
    LAST_STATE_DICT_FILE,
    OPTIMIZER_FILE,
    TRAINING_STATE_FILE,
    CheckpointWriter,
    find_checkpoint,
)

logger = logging.getLogger(__name__)

__all__ = [
    "LAST_STATE_DICT_FILE",
    "OPTIMIZER_FILE",
    "TRAINING_STATE_FILE",
    "ResumableTrainer",
    "TrainingResult",
    "TrainingState",
]


@dataclass
class TrainingResult:
    """What a call of a trainer's ``train`` achieved.

    Attributes:
        epochs: Epochs trained in total (including those of a resumed run).
        env_steps: Env steps collected in total (all envs).
        train_seconds: Seconds spent in rollouts and updates in this call (evaluation excluded).
        run_env_steps: Env steps collected in this call (a resumed run's earlier steps excluded):
            the steps that ``train_seconds`` took.
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
    run_env_steps: int
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
        last_weights: The file of the model's latest weights (:data:`LAST_STATE_DICT_FILE`; None:
            not written, e.g. by maze versions that resumed from the best model).
    """

    epochs: int = 0
    env_steps: int = 0
    best_reward: float = float("-inf")
    trainer: Optional[str] = None
    state_dicts: list[str] = field(default_factory=list)
    last_weights: Optional[str] = None

    @classmethod
    def load(cls, path: Path) -> TrainingState:
        """Reads ``training_state.yaml``.

        Raises:
            ConfigurationError: The file is no valid YAML mapping of the expected keys.
        """
        try:
            values = load_untrusted_yaml(path) or {}
            return cls(
                epochs=int(values.get("epochs", 0)),
                env_steps=int(values.get("env_steps", 0)),
                best_reward=float("-inf") if values.get("best_reward") is None else float(values["best_reward"]),
                trainer=values.get("trainer"),
                state_dicts=list(values.get("state_dicts", [])),
                last_weights=_file_name(values.get("last_weights")),
            )
        except UntrustedFileError:
            raise
        except (yaml.YAMLError, UnicodeDecodeError, AttributeError, TypeError, ValueError) as error:
            raise ConfigurationError(
                f"{str(path)!r} is not a valid training state ({type(error).__name__}: {error}); delete it to "
                "warm-start from the model only"
            ) from None

    def save(self, path: Path) -> None:
        """Writes the state atomically as YAML."""
        atomic_write_bytes(path, self.to_bytes())

    def to_bytes(self) -> bytes:
        """The state as the YAML of ``training_state.yaml``."""
        values = {
            "epochs": self.epochs,
            "env_steps": self.env_steps,
            "best_reward": self.best_reward if math.isfinite(self.best_reward) else None,
            "trainer": self.trainer,
            "state_dicts": self.state_dicts,
            "last_weights": self.last_weights,
        }
        return yaml.safe_dump(values, sort_keys=False).encode("utf-8")


class ResumableTrainer:
    """Mixin of trainers whose state is saved every epoch and restored from ``input_dir``.

    The trainer provides ``config`` (with the budget keys ``max_env_steps`` and ``max_seconds``),
    ``optimizer`` (with ``state_dict``/``load_state_dict``), ``epochs_done``, ``best_reward`` and
    the :attr:`env_steps` property; it may add state with :meth:`extra_state_dicts` /
    :meth:`load_extra_state_dicts`. ``state_dir`` and ``state_model`` (set by the runner) are
    where :meth:`save_training_state` writes a checkpoint at every epoch end and whose latest
    weights it holds. Its ``train`` starts a :class:`RunBudget` with :meth:`start_budget` and
    returns :meth:`result_so_far`, which also tells what an interrupted call achieved.
    """

    config: Any
    optimizer: Any
    epochs_done: int
    best_reward: float
    budget: Optional[RunBudget] = None
    """The budget and meters of the running (or last) ``train`` call (None before the first)."""
    state_dir: Optional[Path] = None
    keep_checkpoints: int = DEFAULT_KEEP_CHECKPOINTS
    """Checkpoints kept in ``state_dir`` (the runner sets ``runner.keep_checkpoints``)."""
    _checkpoints: Optional[CheckpointWriter] = None
    state_model: Optional[TorchModel] = None
    """The model whose weights go to :data:`LAST_STATE_DICT_FILE` (the runner sets it: the model that model selection
    keeps; the runner loads these weights back when it resumes, before the trainer and its workers are built)."""

    @property
    def env_steps(self) -> int:
        """Env steps collected in total."""
        raise NotImplementedError

    @env_steps.setter
    def env_steps(self, value: int) -> None:
        raise NotImplementedError

    @property
    def sub_steps_per_env_step(self) -> Optional[int]:
        """Sub-steps of one env step (None: the trainer does not count them)."""
        return None

    def start_budget(self) -> RunBudget:
        """Starts the budget and meters of a ``train`` call from the config's budget keys (see :attr:`budget`)."""
        self.budget = RunBudget(self.config.max_env_steps, self.config.max_seconds, start_env_steps=self.env_steps)
        return self.budget

    def result_so_far(self, solved: bool, stop_reason: str) -> TrainingResult:
        """What the running (or last) ``train`` call achieved, e.g. when it stops or is interrupted.

        Args:
            solved: ``target_reward`` was reached.
            stop_reason: Why training stopped.
        """
        budget = self.budget or RunBudget(start_env_steps=self.env_steps)
        sub_steps = self.sub_steps_per_env_step
        return TrainingResult(
            self.epochs_done,
            self.env_steps,
            budget.train_seconds,
            self.best_reward,
            solved,
            stop_reason,
            self.env_steps - budget.start_env_steps,
            None if sub_steps is None else self.env_steps * sub_steps,
        )

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

    def save_training_state(self, directory: Optional[Union[str, Path]] = None) -> Optional[Path]:
        """Writes the checkpoint of this epoch end, ``checkpoint-<epochs_done>/``, as one atomic unit.

        It holds the latest weights, ``optimizer.pt`` and ``training_state.yaml`` (see the module
        docs); the last :attr:`keep_checkpoints` checkpoints stay.

        Args:
            directory: The run directory to write into (default: ``state_dir``; neither: nothing is written).

        Returns:
            The checkpoint directory (None: nothing written).
        """
        directory = Path(directory) if directory is not None else self.state_dir
        if directory is None:
            return None
        where = directory / f"{CHECKPOINT_PREFIX}{self.epochs_done}"
        files: dict[str, bytes] = {}
        last_weights = None
        if self.state_model is not None:
            files[LAST_STATE_DICT_FILE] = state_dict_bytes(self.state_model.state_dict(), where / LAST_STATE_DICT_FILE)
            last_weights = LAST_STATE_DICT_FILE
        optimizer_state = self.optimizer.state_dict()
        if not _holds_tensors_only(optimizer_state):  # e.g. torch.optim: plain numbers in param_groups
            optimizer_state = None
        state_dicts = {**({"optimizer": optimizer_state} if optimizer_state else {}), **self.extra_state_dicts()}
        if state_dicts:
            files[OPTIMIZER_FILE] = state_dict_bytes(state_dicts, where / OPTIMIZER_FILE)
        trainer = type(self).__name__
        state = TrainingState(
            self.epochs_done, self.env_steps, self.best_reward, trainer, list(state_dicts), last_weights
        )
        files[TRAINING_STATE_FILE] = state.to_bytes()
        return self._checkpoint_writer(directory).save(self.epochs_done, files)

    def _checkpoint_writer(self, directory: Path) -> CheckpointWriter:
        """The writer of ``directory`` (made at the first save there: it cleans the directory's stale temporary files)."""
        writer = self._checkpoints
        if writer is None or writer.run_dir != directory:
            writer = self._checkpoints = CheckpointWriter(directory, self.keep_checkpoints)
        writer.keep = max(1, int(self.keep_checkpoints))
        return writer

    def nothing_to_train(self, limit: int) -> Optional[str]:
        """Why training up to ``limit`` epochs in total (0: no limit) has nothing to do; None: it has epochs to train.

        A resumed run may already have ``limit`` epochs; its trainer then stops before training
        and saves its state again (see :meth:`save_training_state`), so the new run directory
        stays resumable.
        """
        if not limit or self.epochs_done < limit:
            return None
        return (
            f"nothing to train: the run already has {self.epochs_done} epochs >= n_epochs={limit} "
            "(n_epochs counts the epochs of the resumed run; raise algorithm.n_epochs to train on)"
        )

    def restore_training_state(self, directory: Path) -> list[str]:
        """Restores the newest complete checkpoint of a run directory (the model is loaded by the runner).

        A run of the same trainer is *resumed*: epochs, env steps, best score, optimizer and
        extra state continue; env steps this trainer collected before (e.g. refilling a replay
        buffer) count on top of the restored ones. A run of another trainer (e.g. BC before PPO
        fine-tuning) is a *warm start*: the counters and the best score (of another objective)
        start fresh, and only an optimizer state that fits is taken. Foreign or missing parts are
        skipped with a note.

        Args:
            directory: A run directory (new or flat layout; see :func:`find_checkpoint`) or one checkpoint directory.

        Returns:
            What was restored, for the log line.
        """
        checkpoint = find_checkpoint(directory)
        state_file = None if checkpoint is None else checkpoint.path(TRAINING_STATE_FILE)
        state = TrainingState.load(state_file) if state_file is not None and state_file.is_file() else TrainingState()
        same_trainer = state.trainer == type(self).__name__
        restored: list[str] = []
        if same_trainer:
            collected = self.env_steps
            self.epochs_done, self.env_steps = state.epochs, state.env_steps + collected
            self.best_reward = max(self.best_reward, state.best_reward)
            since = f" (+{collected} collected before training, e.g. a replay buffer refill)" if collected else ""
            restored.append(
                f"epoch {state.epochs}, {state.env_steps} env steps{since}, best score {state.best_reward:.3f}"
            )
        else:
            restored.append(
                f"warm start from a {state.trainer or 'model-only'} run (counters and best score start fresh)"
            )
        optimizer_file = None if checkpoint is None else checkpoint.path(OPTIMIZER_FILE)
        if optimizer_file is not None and optimizer_file.is_file():
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
                logger.info(
                    f"Note: the optimizer state of input_dir does not fit this model ({error}); starting it fresh"
                )
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


def _file_name(value: Any) -> Optional[str]:
    """A file name of ``training_state.yaml`` (None stays None).

    Raises:
        ValueError: For anything but a plain file name (a path could point out of the run directory).
    """
    if value is None:
        return None
    if not isinstance(value, str) or Path(value).name != value or value in ("", ".", ".."):
        raise ValueError(f"last_weights must be a file name in the run directory, got {value!r}")
    return value
