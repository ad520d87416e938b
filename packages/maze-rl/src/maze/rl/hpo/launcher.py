"""Run the jobs of a sweep in parallel local processes (the ``hydra/launcher=local`` launcher).

Every job runs in its own process, forked from the sweep's job server
(:mod:`maze.rl.hpo.job_server`, which imported the jobs' modules once), in its own sweep
subdirectory, exactly as Hydra's basic launcher would run it in-process: ``maze_cli.log`` and
``.hydra/`` included. The console gets one line when a job starts and one when it ends; a
job's own output is in its ``maze_cli.log``. A job that raises or whose process dies is a
failed :class:`~hydra.core.utils.JobReturn`; the other jobs go on. Under Hydra's basic sweeper
(which stops at the first failed job it reads) the launcher records the jobs itself and ends
the sweep with a summary (see :class:`maze.rl.hpo.sweep.BasicSweepRecorder`).

At most ``n_jobs`` processes run at once, and never more than fit the CPUs: a job takes
``cpus_per_job`` CPUs, by default ``runner.concurrency`` when its runner steps the envs in
worker processes (``runner=local``), else one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Optional

from maze.rl.hpo.job_server import JobOutcome, JobServer
from omegaconf import DictConfig, OmegaConf, open_dict

__all__ = [
    "at_a_time",
    "basic_sweep_size",
    "cpus_of_job",
    "launch_in_processes",
    "parallel_jobs",
    "preload_job_modules",
    "stream_jobs",
    "sweep_parallelism",
]

_BASIC_SWEEPER = "hydra._internal.core_plugins.basic_sweeper.BasicSweeper"


def basic_sweep_size(config: DictConfig, config_loader: Any) -> Optional[int]:
    """The number of jobs Hydra's basic sweeper runs for this sweep config; None under another sweeper.

    Counted as the basic sweeper does it: ``hydra.sweeper.params`` and the command-line
    overrides, expanded to every combination of their sweeps.

    Args:
        config: The sweep config (``hydra.sweeper``, ``hydra.overrides.task``).
        config_loader: Hydra's config loader (for sweeps over group options such as ``glob``).
    """
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    if OmegaConf.select(config, "hydra.sweeper._target_", default=None) != _BASIC_SWEEPER:
        return None
    params = OmegaConf.select(config, "hydra.sweeper.params", default=None) or {}
    arguments = [f"{key}={value}" for key, value in params.items()]
    arguments += list(OmegaConf.select(config, "hydra.overrides.task", default=None) or [])
    overrides = OverridesParser.create(config_loader=config_loader).parse_overrides(arguments)
    return sum(len(batch) for batch in BasicSweeper.split_arguments(overrides, None))


def cpus_of_job(job_config: DictConfig) -> int:
    """CPUs a job occupies: ``runner.concurrency`` for ``runner=local`` (env worker processes), else 1."""
    runner = OmegaConf.select(job_config, "hydra.runtime.choices.runner", default=None)
    concurrency = OmegaConf.select(job_config, "runner.concurrency", default=0)
    if runner == "local" and isinstance(concurrency, int) and concurrency > 0:
        return concurrency
    return 1


def parallel_jobs(n_jobs: int, cpus_per_job: int, cpus: Optional[int] = None) -> int:
    """Processes to run at once: ``n_jobs`` (0: as many as fit), at most what fits ``cpus``."""
    cpus = cpus or os.cpu_count() or 1
    fit = max(1, cpus // max(1, cpus_per_job))
    wanted = n_jobs if n_jobs > 0 else fit
    if wanted > fit:
        print(
            f"[launcher] {wanted} parallel jobs of {cpus_per_job} CPUs each exceed the {cpus} CPUs; running {fit} at a time "
            "(runner.concurrency * parallel jobs <= CPUs)",
            flush=True,
        )
    return min(wanted, fit)


def sweep_parallelism(launcher: Any, num_workers: int) -> tuple[int, str]:
    """The jobs a sweep's optimizer has out at once, and how the sweep summary describes it.

    maze's launchers (those with ``jobs_at_once``) run ``num_workers`` jobs at once where
    ``n_jobs`` and the CPUs allow, else fewer: the launcher's line and the summary name that
    same number, and the optimizer is told it. Other launchers get batches of ``num_workers``
    jobs and run them as they do.

    Args:
        launcher: The sweep's Hydra launcher.
        num_workers: The sweeper's ``optim.num_workers``.

    Returns:
        The jobs at once, and e.g. ``2 jobs at a time (num_workers=4, capped by hydra.launcher.n_jobs and the CPUs)``.
    """
    if not hasattr(launcher, "jobs_at_once"):
        return num_workers, f"batches of {num_workers} jobs ({type(launcher).__name__})"
    at_once = launcher.jobs_at_once(num_workers)
    capped = (
        f" (num_workers={num_workers}, capped by hydra.launcher.n_jobs and the CPUs)" if at_once < num_workers else ""
    )
    return at_once, f"{at_a_time(at_once)}{capped}"


def at_a_time(jobs: int) -> str:
    """``1 job at a time``, ``2 jobs at a time``: the same words in the launcher's line and the sweep summary."""
    return f"{jobs} job{'' if jobs == 1 else 's'} at a time"


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
    server: JobServer,
    config: DictConfig,
    job_overrides: Sequence[Sequence[str]],
    initial_job_idx: int,
    parallel: int,
) -> list[Any]:
    """Runs one job per override list in processes of the job server; returns their JobReturns in order.

    Args:
        hydra_context: Hydra's context (config loader, callbacks).
        server: The job server (started when the launcher was set up).
        config: The sweep config (``hydra.sweep.dir``, ``hydra.sweep.subdir``).
        job_overrides: The overrides of each job.
        initial_job_idx: Number of the first job (``hydra.job.num``).
        parallel: Jobs at once (see :func:`parallel_jobs`).
    """
    parallel = min(parallel, len(job_overrides))
    print(f"[launcher] {len(job_overrides)} jobs, {parallel} at a time, in {config.hydra.sweep.dir}", flush=True)
    pending = iter(job_overrides)
    results: list[Any] = [None] * len(job_overrides)
    for offset, job_return in stream_jobs(
        hydra_context, server, config, lambda: next(pending, None), initial_job_idx, parallel
    ):
        results[offset] = job_return
    return results


def stream_jobs(
    hydra_context: Any,
    server: JobServer,
    config: DictConfig,
    next_overrides: Callable[[], Optional[Sequence[str]]],
    initial_job_idx: int,
    parallel: int,
) -> Iterator[tuple[int, Any]]:
    """Keeps ``parallel`` jobs running: starts the next one as soon as one ends, until ``next_overrides`` has none.

    Args:
        hydra_context: Hydra's context (config loader, callbacks).
        server: The job server.
        config: The sweep config (``hydra.sweep.dir``, ``hydra.sweep.subdir``).
        next_overrides: The overrides of the next job (None: no more jobs); called when a
            process is free, so an optimizer can suggest it from the results so far.
        initial_job_idx: Number of the first job (``hydra.job.num``).
        parallel: Jobs at once.

    Yields:
        ``(offset, JobReturn)`` of every job as it ends (offset: its number minus ``initial_job_idx``).
    """
    Path(str(config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
    running: dict[int, tuple[DictConfig, Sequence[str]]] = {}
    started, exhausted = 0, False
    while True:
        while not exhausted and len(running) < parallel:
            overrides = next_overrides()
            if overrides is None:
                exhausted = True
                break
            job_config = hydra_context.config_loader.load_sweep_config(config, list(overrides))
            with open_dict(job_config):
                job_config.hydra.job.id = job_config.hydra.job.num = initial_job_idx + started
            server.submit(started, job_config)
            running[started] = (job_config, overrides)
            started += 1
            print(f"[launcher] #{job_config.hydra.job.num} started: {' '.join(overrides)}", flush=True)
        if not running:
            return
        offset, outcome, exit_code = server.finished()
        job_config, overrides = running.pop(offset)
        yield offset, _job_return(job_config, overrides, outcome, exit_code)


def _job_return(job_config: DictConfig, overrides: Sequence[str], outcome: JobOutcome, exit_code: Optional[int]) -> Any:
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
