"""Run the jobs of a sweep in parallel local processes (the ``hydra/launcher=local`` launcher).

Every job runs in its own child process (forked, so the task and its config need no
pickling, and with the job's modules imported once in the launcher), in its own sweep subdirectory, exactly as Hydra's basic launcher would run it
in-process: ``maze_cli.log`` and ``.hydra/`` included. The console gets one line when a job
starts and one when it ends; a job's own output is in its ``maze_cli.log``. A job that
raises or whose process dies is a failed :class:`~hydra.core.utils.JobReturn`; the other
jobs go on.

At most ``n_jobs`` processes run at once, and never more than fit the CPUs: a job takes
``cpus_per_job`` CPUs, by default ``runner.concurrency`` when its runner steps the envs in
worker processes (``runner=local``), else one.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import sys
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional

from omegaconf import DictConfig, OmegaConf, open_dict

__all__ = ["cpus_of_job", "launch_in_processes", "parallel_jobs", "preload_job_modules"]

_MESSAGE_LIMIT = 2000
"""Characters of a failed job's error message sent back to the launcher."""


def cpus_of_job(job_config: DictConfig) -> int:
    """CPUs a job occupies: ``runner.concurrency`` for ``runner=local`` (env worker processes), else 1."""
    runner = OmegaConf.select(job_config, "hydra.runtime.choices.runner", default=None)
    concurrency = OmegaConf.select(job_config, "runner.concurrency", default=0)
    if runner == "local" and isinstance(concurrency, int) and concurrency > 0:
        return concurrency
    return 1


def parallel_jobs(n_jobs: int, cpus_per_job: int, n_pending: int, cpus: Optional[int] = None) -> int:
    """Processes to run at once: ``n_jobs`` (0: as many as fit), at most what fits ``cpus``, at most ``n_pending``."""
    cpus = cpus or os.cpu_count() or 1
    fit = max(1, cpus // max(1, cpus_per_job))
    wanted = n_jobs if n_jobs > 0 else fit
    if wanted > fit:
        print(
            f"[launcher] {wanted} parallel jobs of {cpus_per_job} CPUs each exceed the {cpus} CPUs; running {fit} at a time "
            "(runner.concurrency * parallel jobs <= CPUs)",
            flush=True,
        )
    return max(1, min(wanted, fit, n_pending))


def preload_job_modules(job_config: DictConfig, drawing: bool = True) -> None:
    """Imports the job's modules (runner, trainer, TensorBoard writer) once, before the jobs are forked.

    Every forked job then starts with them imported instead of importing them again (seconds
    per job). Nothing is built or run, so no thread pools exist yet when forking. Import
    errors are left to the jobs, which report them.

    Args:
        job_config: The config of a job.
        drawing: Also import the graph drawing (matplotlib). Worth it when several jobs run at
            once: every job's drawing child would import it again (about 0.5 s of CPU) on cores
            the jobs need. With one job at a time the drawing child runs on a spare core, and
            importing matplotlib up front would only delay the first job.
    """
    import maze.rl.run  # noqa: F401 - the job's own module
    from maze.env.utils.factory import resolve_target
    from maze.train.tensorboard import preload_writer_modules

    preload_writer_modules()  # every job writes TensorBoard events
    if drawing:
        from maze.train.runners.graphs import preload_drawing

        preload_drawing()

    for key in ("runner._target_", "runner.trainer_class"):
        target = OmegaConf.select(job_config, key, default=None)
        if isinstance(target, str):
            try:
                resolve_target(target)
            except Exception:  # noqa: BLE001 - the job reports it
                pass


def launch_in_processes(
    hydra_context: Any,
    task_function: Any,
    config: DictConfig,
    job_overrides: Sequence[Sequence[str]],
    initial_job_idx: int,
    n_jobs: int = 0,
    cpus_per_job: int = 0,
) -> list[Any]:
    """Runs one job per override list in child processes; returns their JobReturns in order.

    Args:
        hydra_context: Hydra's context (config loader, callbacks).
        task_function: The Hydra task (``maze-run``'s job).
        config: The sweep config (``hydra.sweep.dir``, ``hydra.sweep.subdir``).
        job_overrides: The overrides of each job.
        initial_job_idx: Number of the first job (``hydra.job.num``).
        n_jobs: Processes at once (0: as many as fit the CPUs).
        cpus_per_job: CPUs per job (0: see :func:`cpus_of_job`).
    """
    from hydra.core.utils import configure_log, setup_globals

    setup_globals()
    configure_log(config.hydra.hydra_logging, config.hydra.verbose)
    Path(str(config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
    if not job_overrides:
        return []

    def compose(offset: int) -> DictConfig:
        """The config of job ``offset`` (composed when the job is about to start, while others run)."""
        job_config = hydra_context.config_loader.load_sweep_config(config, list(job_overrides[offset]))
        with open_dict(job_config):
            job_config.hydra.job.id = job_config.hydra.job.num = initial_job_idx + offset
        return job_config

    configs: list[Optional[DictConfig]] = [compose(0)] + [None] * (len(job_overrides) - 1)
    parallel = parallel_jobs(n_jobs, cpus_per_job or cpus_of_job(configs[0]), len(configs))
    preload_job_modules(configs[0], drawing=parallel > 1)
    print(f"[launcher] {len(configs)} jobs, {parallel} at a time, in {config.hydra.sweep.dir}", flush=True)
    context = multiprocessing.get_context("fork")
    pending = deque(range(len(configs)))
    running: dict[Any, tuple[int, Any, Any]] = {}
    results: list[Any] = [None] * len(configs)
    while pending or running:
        while pending and len(running) < parallel:
            index = pending.popleft()
            configs[index] = configs[index] or compose(index)
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(target=_run_child, args=(sender, hydra_context, task_function, configs[index]))
            process.start()
            sender.close()
            running[receiver] = (index, process, receiver)
            print(f"[launcher] #{configs[index].hydra.job.num} started: {' '.join(job_overrides[index])}", flush=True)
        for ready in multiprocessing.connection.wait(list(running)):
            index, process, receiver = running.pop(ready)
            outcome = _receive(receiver)
            process.join()
            results[index] = _job_return(configs[index], job_overrides[index], outcome, process.exitcode)
    return results


def _receive(receiver: Any) -> Optional[tuple[str, Any]]:
    try:
        return receiver.recv()
    except (EOFError, OSError):  # the process died before sending
        return None
    finally:
        receiver.close()


def _run_child(sender: Any, hydra_context: Any, task_function: Any, job_config: DictConfig) -> None:
    """The child process: runs the job with Hydra's ``run_job`` and sends ``(status, value or message)``."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.core.utils import JobStatus, run_job

    devnull = open(os.devnull, "w", encoding="utf-8")  # the job's output goes to its maze_cli.log
    sys.stdout = sys.stderr = devnull
    try:
        HydraConfig.instance().set_config(job_config)
        result = run_job(
            hydra_context=hydra_context,
            task_function=task_function,
            config=job_config,
            job_dir_key="hydra.sweep.dir",
            job_subdir_key="hydra.sweep.subdir",
        )
        if result.status == JobStatus.COMPLETED:
            outcome = ("completed", result._return_value)
        else:
            error = result._return_value
            outcome = ("failed", f"{type(error).__name__}: {error}"[:_MESSAGE_LIMIT])
    except BaseException as error:  # noqa: BLE001 - reported to the launcher, never lost
        outcome = ("failed", f"{type(error).__name__}: {error}"[:_MESSAGE_LIMIT])
    try:
        sender.send(outcome)
    except Exception as error:  # an unpicklable return value
        sender.send(("failed", f"the job's return value cannot be sent back: {error}"))
    sender.close()


def _job_return(job_config: DictConfig, overrides: Sequence[str], outcome: Any, exit_code: Optional[int]) -> Any:
    """The JobReturn of a finished child process (failed with the error message, or completed)."""
    from hydra.core.utils import JobReturn, JobStatus
    from maze.rl.cli import JobFailedError

    working_dir = str(Path(str(job_config.hydra.sweep.dir)) / str(job_config.hydra.sweep.subdir))
    number = job_config.hydra.job.num
    if outcome is None:
        outcome = ("failed", f"the job's process died (exit code {exit_code})")
    status, value = outcome
    completed = status == "completed"
    if completed:
        print(f"[launcher] #{number} done: objective {value}", flush=True)
    else:
        print(f"[launcher] #{number} FAILED: {value} (log: {working_dir}/maze_cli.log)", flush=True)
    return JobReturn(
        overrides=list(overrides),
        hydra_cfg=job_config,
        working_dir=working_dir,
        task_name=job_config.hydra.job.name,
        status=JobStatus.COMPLETED if completed else JobStatus.FAILED,
        _return_value=value if completed else JobFailedError(value),
    )
