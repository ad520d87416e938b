"""The base of every ``maze-run`` job: rollout runners and training runners."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Optional, Union

__all__ = ["Runner", "outputs_note"]


class Runner(ABC):
    """A job of the ``maze-run`` command line, built from the ``runner`` config group.

    The command line instantiates ``cfg.runner`` (its keys are the constructor arguments),
    then calls :meth:`setup` with the whole resolved config and :meth:`run`. Runners write
    their outputs into the current working directory, which is the run directory.
    """

    @abstractmethod
    def setup(self, cfg: Any) -> None:
        """Builds everything the job needs from the whole config (env, wrappers, model, ...).

        Args:
            cfg: The resolved job config (a DictConfig or a plain nested dict).
        """

    @abstractmethod
    def run(self) -> Optional[float]:
        """Runs the job.

        Returns:
            The job's objective where it has one (the best evaluation reward of a training
            run, the mean reward of a rollout), for hyper-parameter sweepers; else None.
        """


def outputs_note(run_dir: Union[str, os.PathLike], contents: Sequence[str] = ()) -> str:
    """The words that end a job's last line, naming its run directory: ``Outputs: <run_dir> (<contents>)``.

    Args:
        run_dir: The run directory (printed as given; pass it absolute).
        contents: What the job wrote there worth naming, e.g. ``["trajectory_data/", "event_logs/"]``.
    """
    listed = f" ({', '.join(contents)})" if contents else ""
    return f"Outputs: {os.fspath(run_dir)}{listed}"
