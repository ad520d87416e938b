"""Runners for the CLI tests, selected with ``runner._target_=fake_runners.<Name>`` (on PYTHONPATH)."""

from __future__ import annotations

import json
import os
import time
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.rollout import Runner
from omegaconf import OmegaConf

RECORD_FILE = "runner_record.json"


class RecordingRunner(Runner):
    """Records its arguments, the config and the working directories into ``runner_record.json``.

    ``objective`` (optional) is what :meth:`run` returns.
    """

    def __init__(self, objective: Optional[float] = None, **kwargs: Any) -> None:
        self.objective = objective
        self.kwargs = kwargs
        self.record: dict[str, Any] = {"init_cwd": os.getcwd(), "kwargs": kwargs}

    def setup(self, cfg: Any) -> None:
        self.record["setup_cwd"] = os.getcwd()
        self.record["config"] = OmegaConf.to_container(cfg)

    def run(self) -> Optional[float]:
        self.record["run_cwd"] = os.getcwd()
        print(f"recording runner: objective {self.objective}")
        with open(RECORD_FILE, "w", encoding="utf-8") as file:
            json.dump(self.record, file)
        return self.objective


class FailingRunner(Runner):
    """Fails in :meth:`run`: with a ConfigurationError (``kind: maze``) or a RuntimeError (``kind: bug``)."""

    def __init__(self, kind: str = "maze", **kwargs: Any) -> None:
        self.kind = kind

    def setup(self, cfg: Any) -> None:
        print("failing runner: set up")

    def run(self) -> Optional[float]:
        if self.kind == "maze":
            raise ConfigurationError("the fake runner was told to fail; set runner.kind=ok to succeed")
        raise RuntimeError("unexpected failure inside the fake runner")


class ObjectiveRunner(Runner):
    """Returns ``-(x - 0.3) ** 2`` (best at x = 0.3) for sweeps; its process dies (exit code 3) for ``x > crash_above``."""

    def __init__(self, x: float = 0.0, crash_above: float = float("inf"), **kwargs: Any) -> None:
        self.x = float(x)
        self.crash_above = float(crash_above)

    def setup(self, cfg: Any) -> None:
        pass

    def run(self) -> Optional[float]:
        if self.x > self.crash_above:
            os._exit(3)
        return -((self.x - 0.3) ** 2)


class RendezvousRunner(Runner):
    """Meets the other jobs of its group: job ``job`` is in group ``job // parties``; fails after ``timeout`` s alone.

    Each job leaves a file ``<group>-<pid>`` in ``directory`` and waits until ``parties`` such
    files exist, so a sweep of these jobs completes only if the launcher runs ``parties`` at once.
    """

    def __init__(self, directory: str, job: int, parties: int = 2, timeout: float = 20.0, **kwargs: Any) -> None:
        self.directory, self.group, self.parties, self.timeout = directory, int(job) // parties, parties, timeout

    def setup(self, cfg: Any) -> None:
        pass

    def run(self) -> Optional[float]:
        os.makedirs(self.directory, exist_ok=True)
        open(os.path.join(self.directory, f"{self.group}-{os.getpid()}"), "w").close()
        deadline = time.monotonic() + self.timeout
        while len([name for name in os.listdir(self.directory) if name.startswith(f"{self.group}-")]) < self.parties:
            if time.monotonic() > deadline:
                raise RuntimeError(f"no other job of group {self.group} ran within {self.timeout} s")
            time.sleep(0.01)
        return 1.0
