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


def once_in_the_learner(owner: Any, method: str, when: Callable[[], bool], action: Callable[[], Any]) -> list[Any]:
    """Makes ``owner.<method>`` call ``action()`` once, before itself, when ``when()`` holds; returns its result.

    The action happens in the learner's own call (e.g. IMPALA's ``collect_outputs``), between two
    updates, so where it falls does not depend on the machine's speed.

    Returns:
        A list that receives the action's result when it ran.
    """
    original = getattr(owner, method)
    done: list[Any] = []

    def act_once_then_call(*args: Any, **kwargs: Any) -> Any:
        if not done and when():
            done.append(action())
        return original(*args, **kwargs)

    setattr(owner, method, act_once_then_call)
    return done


def kill_actor_in_the_learner(
    ray: Any, owner: Any, method: str, actor: Callable[[], Any], when: Callable[[], bool], wait_for_restart: bool
) -> list[int]:
    """Makes ``owner.<method>`` SIGKILL the process of ``actor()`` once ``when()`` holds; returns the pids killed.

    See :func:`once_in_the_learner`. With ``wait_for_restart`` the learner then waits until Ray
    has restarted the actor, so the run cannot end before the death is seen and the new
    instance has delivered.
    """

    def kill() -> int:
        pid = ray.get(actor().pid.remote())
        os.kill(pid, signal.SIGKILL)
        if wait_for_restart:
            wait_for_a_new_process(ray, actor(), pid)
        return pid

    return once_in_the_learner(owner, method, when, kill)


def wait_for_a_new_process(ray: Any, actor: Any, old_pid: int, timeout_s: float = 120) -> None:
    """Blocks until ``actor`` answers from a process other than ``old_pid`` (Ray restarted it)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if ray.get(actor.pid.remote(), timeout=timeout_s) != old_pid:
                return
        except ray.exceptions.RayActorError:  # sent before Ray saw the death, or while it restarts
            time.sleep(0.2)
    raise AssertionError(f"Ray did not restart the killed actor within {timeout_s} s")


def remove_the_worker_node(ray: Any, cluster: Any, actors: Sequence[Any]) -> int:
    """Removes the worker node of the session's two-node cluster; returns the index of the actor that ran there.

    Each of ``actors`` has a ``node()`` method that answers its node's id.
    """
    (node,) = cluster.worker_nodes
    (lost,) = [i for i, actor in enumerate(actors) if ray.get(actor.node.remote()) == node.node_id]
    cluster.remove_node(node)
    return lost


def replaced_node_loss(
    ray: Any, cluster: Any, connections: Any, actors: Callable[[], Sequence[Any]], limit_s: float
) -> tuple[Callable[[], int], Callable[[], None]]:
    """``(remove, replace)``: the worker node's removal and the new node that takes its place.

    ``remove()`` (for the learner's thread) is :func:`remove_the_worker_node` of ``actors()``;
    ``replace()`` (the ``meanwhile`` of :func:`finished_within`: starting a node needs the test's
    main thread) adds a 1-CPU node once the worker node was removed, or gives up after ``limit_s``.
    """
    removed = threading.Event()

    def remove() -> int:
        lost = remove_the_worker_node(ray, cluster, actors())
        removed.set()
        return lost

    def replace() -> None:
        if removed.wait(limit_s):
            cluster.add_node(num_cpus=1, temp_dir=str(connections.temp_dir))

    return remove, replace


def restore_the_worker_node(cluster: Any, connections: Any) -> None:
    """Adds a worker node again if a test removed it (the next cluster tests need it)."""
    if not cluster.worker_nodes:
        cluster.add_node(num_cpus=1, temp_dir=str(connections.temp_dir))
        cluster.wait_for_nodes()


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
