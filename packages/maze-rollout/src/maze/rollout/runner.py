"""The base of every ``maze-run`` job: rollout runners and training runners."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Optional

__all__ = ["Runner"]


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
