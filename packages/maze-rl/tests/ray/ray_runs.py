"""Builds ``maze-run`` jobs in the test process, so that they use the session's Ray (maze-rllib's tests use it too)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_module
from hydra.core.hydra_config import HydraConfig
from maze.env.log_stats.global_state import register_log_stats_writer, unregister_log_stats_writer
from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.writers import LogStatsWriter
from maze.rl.run import build_runner, prepare_config
from omegaconf import open_dict

CARTPOLE_TRAINING = ("env.name=CartPole-v1", "model=vector_obs", "runner.progress=off")
"""CartPole-v1 with a small template model, without progress bars."""


def kill_actor_in_the_learner(
    ray: Any, owner: Any, method: str, actor: Callable[[], Any], when: Callable[[], bool], wait_for_restart: bool
) -> list[int]:
    """Makes ``owner.<method>`` SIGKILL the process of ``actor()`` once ``when()`` holds; returns the pids killed.

    The kill happens in the learner's own call (e.g. IMPALA's ``collect_outputs``), between two
    updates, so where it falls does not depend on the machine's speed. With ``wait_for_restart``
    the learner then waits until Ray has restarted the actor, so the run cannot end before the
    death is seen and the new instance has delivered.
    """
    original = getattr(owner, method)
    killed: list[int] = []

    def call_and_kill_once(*args: Any, **kwargs: Any) -> Any:
        if not killed and when():
            pid = ray.get(actor().pid.remote())
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            if wait_for_restart:
                _wait_for_a_new_process(ray, actor(), pid)
        return original(*args, **kwargs)

    setattr(owner, method, call_and_kill_once)
    return killed


def _wait_for_a_new_process(ray: Any, actor: Any, old_pid: int, timeout_s: float = 120) -> None:
    """Blocks until ``actor`` answers from a process other than ``old_pid`` (Ray restarted it)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if ray.get(actor.pid.remote(), timeout=timeout_s) != old_pid:
                return
        except ray.exceptions.RayActorError:  # sent before Ray saw the death, or while it restarts
            time.sleep(0.2)
    raise AssertionError(f"Ray did not restart the killed actor within {timeout_s} s")


def finished_within(seconds: float, run: Callable[[], Any], meanwhile: Callable[[], Any] = lambda: None) -> Any:
    """Calls ``run()`` in a thread and returns its result (or raises its exception); fails if it hangs past ``seconds``.

    ``meanwhile()`` is called in this thread while ``run()`` runs (e.g. adding a cluster node needs the main thread).
    """
    outcome: dict[str, Any] = {}

    def call() -> None:
        try:
            outcome["result"] = run()
        except BaseException as error:  # re-raised in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    meanwhile()
    thread.join(seconds)
    assert not thread.is_alive(), f"the run did not finish within {seconds} s: it hangs"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def set_up_job(root: str, overrides: Sequence[str], run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Composes the ``root`` config with ``overrides`` and returns its runner, set up in ``run_dir``.

    The job's Hydra config is set as ``maze-run`` sets it (``${hydra:runtime.cwd}`` resolves to the
    directory the test started in).
    """
    with initialize_config_module("maze.conf", version_base="1.3"):
        cfg = compose(root, overrides=list(overrides), return_hydra_config=True)
    HydraConfig.instance().set_config(cfg)
    with open_dict(cfg):
        del cfg["hydra"]
    run_dir.mkdir(parents=True)
    monkeypatch.chdir(run_dir)
    prepare_config(cfg, run_dir)
    runner = build_runner(cfg)
    runner.setup(cfg)
    return runner


class StatsRecorder(LogStatsWriter):
    """Keeps every statistics table written under ``prefix`` while registered (a ``with`` block)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.tables: list[LogStats] = []

    def write(self, path: Any, step: int, stats: LogStats) -> None:
        """Keeps the table if it has the recorder's prefix."""
        if path == self.prefix:
            self.tables.append(dict(stats))

    def __enter__(self) -> StatsRecorder:
        register_log_stats_writer(self)
        return self

    def __exit__(self, *_: object) -> None:
        unregister_log_stats_writer(self)
