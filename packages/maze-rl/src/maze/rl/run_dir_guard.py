"""RunDirGuard: a new ``maze-run`` job never starts in a directory that already holds a run.

Hydra writes ``.hydra/`` into the run directory before the job starts, and the job then
writes its checkpoint, logs and statistics there; a second run in the same directory would
silently replace the first run's best model. This Hydra callback checks the run directory
before Hydra touches it and refuses with one message naming both ways out: ``input_dir=``
to resume (into a fresh directory) or ``hydra.run.dir=`` for a fresh path. The root
configs' ``overwrite_run_dir: true`` allows the reuse deliberately.

A directory that holds only what every start writes first, ``.hydra/`` and ``maze_cli.log``,
is no run: a start that failed before producing anything (a mistyped env id, a bad value).
Starting there again is allowed, so a fixed ``hydra.run.dir`` works once the mistake is
fixed; the new start overwrites ``.hydra/`` and appends to the log. Nothing is ever deleted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from maze.env.errors import ConfigurationError
from omegaconf import DictConfig, OmegaConf

__all__ = ["RUN_MARKERS", "START_FILES", "RunDirGuard", "RunDirRefused", "holds_a_run"]

START_FILES = (".hydra", "maze_cli.log")
"""What every ``maze-run`` start writes before the job does anything: the composed config and the log."""

RUN_MARKERS = ("state_dict.pt", "training_state.yaml", "trajectory_data")
"""Outputs that show a directory holds a run even without ``.hydra/`` (``hydra.output_subdir=null``)."""


class RunDirRefused(BaseException):
    """The run directory holds a run; ``error`` says what to do.

    A BaseException because Hydra turns the Exceptions of callbacks into warnings and goes
    on; ``maze-run`` catches it and prints ``error`` as one ``Error:`` line.
    """

    def __init__(self, error: ConfigurationError) -> None:
        super().__init__(str(error))
        self.error = error


def holds_a_run(directory: Path) -> bool:
    """True if ``directory`` holds outputs of a previous run.

    A directory with ``.hydra/`` is a run directory: anything in it besides :data:`START_FILES`
    is an output (checkpoint, TensorBoard events, trajectories, statistics, ...). Any other
    directory (an existing folder of the user's) holds a run only with one of :data:`RUN_MARKERS`.
    """
    if not directory.is_dir():
        return False
    if (directory / ".hydra").is_dir():
        return any(entry.name not in START_FILES for entry in directory.iterdir())
    return any((directory / marker).exists() for marker in RUN_MARKERS)


class RunDirGuard(Callback):
    """Refuses to start a single run in a directory that holds a previous run (see the module docs)."""

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Checks ``hydra.run.dir`` before Hydra creates or writes it.

        Raises:
            RunDirRefused: The directory holds a run and ``overwrite_run_dir`` is not true.
        """
        if OmegaConf.select(config, "overwrite_run_dir", default=False):
            return
        HydraConfig.instance().set_config(config)
        run_dir = Path(str(OmegaConf.select(config, "hydra.run.dir"))).expanduser().absolute()
        if not holds_a_run(run_dir):
            return
        raise RunDirRefused(
            ConfigurationError(
                f"the run directory {str(run_dir)!r} already holds a run; starting here would overwrite its outputs. "
                f"To continue that run, resume from it into a new directory with input_dir={run_dir}; for a fresh "
                "run pick another path with hydra.run.dir=<new directory>; to reuse it anyway pass "
                "overwrite_run_dir=true"
            )
        )
