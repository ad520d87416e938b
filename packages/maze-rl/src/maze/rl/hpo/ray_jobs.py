"""Run the jobs of a sweep as Ray tasks (the ``hydra/launcher=ray`` launcher; extra ``maze-train[ray]``).

Our own thin glue over the launcher's job loop (:func:`maze.rl.hpo.launcher.stream_jobs`):
:class:`RayJobServer` has the calls of the local :class:`~maze.rl.hpo.job_server.JobServer`,
so the sweep streams exactly as with ``hydra/launcher=local`` (a job starts as soon as one
ends, one console line at each start and end, the sweeper asks for the next job from the
results so far), while every job runs as one Ray task, on this machine or on a cluster
(``ray_address``; user modules reach other nodes through ``runtime_env``). A task runs the job
as Hydra's basic launcher would (its sweep subdirectory, ``.hydra/``, ``maze_cli.log``), started
in the sweep command's directory (on a cluster: a path every node shares) in a fresh Ray worker process
(``max_calls=1``: no state leaks from one job into the next). A job that raises, or whose
worker or node dies, is a failed job; Ray does not retry it and the other jobs go on.
"""

from __future__ import annotations

import atexit
import os
from contextlib import ExitStack, redirect_stderr, redirect_stdout
from typing import Any, Mapping, Optional

from maze.rl.hpo.job_server import JobOutcome, run_job_outcome
from maze.rl.hpo.launcher import cpus_of_job, parallel_jobs
from maze.rollout.ray_cluster import RayCluster
from omegaconf import DictConfig

__all__ = ["RAY_LAUNCHER_EXTRA", "RayJobServer"]

RAY_LAUNCHER_EXTRA = "maze-train[ray]"
"""The extra that installs Ray for the launcher."""


def _run_in_task(context: tuple[Any, Any, str], job_config: DictConfig) -> tuple[str, Any]:
    """A job's Ray task: runs it in the sweep command's directory, its console output silenced (see ``maze_cli.log``).

    Args:
        context: Hydra's context, the task function and the directory the sweep was started in
            (relative paths of the config, the sweep directory included, start there).
        job_config: The job's composed config.
    """
    hydra_context, task_function, launch_dir = context
    os.chdir(launch_dir)  # the task's worker process runs this one job only (max_calls=1)
    with open(os.devnull, "w", encoding="utf-8") as devnull, redirect_stdout(devnull), redirect_stderr(devnull):
        return run_job_outcome(hydra_context, task_function, job_config)


class RayJobServer:
    """Connects to Ray; :meth:`submit` starts a job as a Ray task, :meth:`finished` waits for one to end.

    Args:
        hydra_context: Hydra's context (config loader, callbacks), sent to every task.
        task_function: The Hydra task (``maze-run``'s job).
        cpus_per_job: CPUs Ray reserves for a job (0: as the local launcher counts them, see :func:`cpus_of_job`).
        config: The sweep config.
        address: Cluster to use (None: ``RAY_ADDRESS``, else a local Ray, stopped at exit).
        init: Further ``ray.init`` arguments.
        runtime_env: Ray runtime environment of the jobs.
    """

    def __init__(
        self,
        hydra_context: Any,
        task_function: Any,
        cpus_per_job: int,
        config: DictConfig,
        address: Optional[str] = None,
        init: Optional[Mapping[str, Any]] = None,
        runtime_env: Optional[Mapping[str, Any]] = None,
    ) -> None:
        cluster = RayCluster(
            address, init or {}, runtime_env, 0, component="hydra/launcher=ray", extra=RAY_LAUNCHER_EXTRA
        )
        self._stack = ExitStack()
        self._ray = self._stack.enter_context(cluster.connected())
        atexit.register(self.close)
        self.cpus_per_job = cpus_per_job or cpus_of_job(config)
        options = {key: value for key, value in cluster.actor_options().items() if key == "runtime_env"}
        self._task = self._ray.remote(max_calls=1, max_retries=0)(_run_in_task).options(
            num_cpus=self.cpus_per_job, **options
        )
        self._context = self._ray.put((hydra_context, task_function, os.getcwd()))
        self._running: dict[Any, int] = {}

    def parallel_jobs(self, n_jobs: int) -> int:
        """Jobs at once: ``n_jobs`` (0: as many as fit), at most what fits the cluster's CPUs."""
        cpus = int(self._ray.cluster_resources().get("CPU", 1))
        print(f"[launcher] jobs run as Ray tasks of {self.cpus_per_job} CPUs on a Ray of {cpus} CPUs", flush=True)
        return parallel_jobs(n_jobs, self.cpus_per_job, cpus)

    def submit(self, index: int, job_config: DictConfig) -> None:
        """Starts job ``index`` with its composed config as a Ray task."""
        self._running[self._task.remote(self._context, job_config)] = index

    def finished(self) -> tuple[int, JobOutcome, Optional[int]]:
        """Waits for the next job to end; returns its index, outcome and (no) exit code."""
        ready, _ = self._ray.wait(list(self._running), num_returns=1)
        index = self._running.pop(ready[0])
        try:
            outcome: JobOutcome = self._ray.get(ready[0])
        except self._ray.exceptions.RayError as error:  # the worker or its node died
            outcome = ("failed", f"the job's Ray task failed: {str(error).splitlines()[0]}")
        return index, outcome, None

    def close(self) -> None:
        """Disconnects (a Ray started for the sweep stops; idempotent)."""
        self._stack.close()
