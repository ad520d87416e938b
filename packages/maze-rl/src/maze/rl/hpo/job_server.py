"""The sweep's job server: a process that imports the jobs' modules once and forks every job.

The launcher starts it when Hydra sets the launcher up, before the sweeper composes and
checks every job's config. So the server imports torch, maze and the runner (about a second)
while the sweep command's own process composes the configs (about 0.15 s a job), on the
other core, instead of one after the other before the first job can start. The jobs are
forked from the server: each starts with the modules imported and runs exactly like a job
of Hydra's basic launcher (``run_job``: its sweep subdirectory, ``.hydra/``, ``maze_cli.log``).

A job that raises, or whose process dies, is reported as failed with its message or exit
code; the server goes on with the next. The server ends when the sweep command closes its
request pipe (at exit, or when the command's process dies).
"""

from __future__ import annotations

import atexit
import multiprocessing
import multiprocessing.connection
import os
import sys
from typing import Any, Optional

from omegaconf import DictConfig

__all__ = ["JobOutcome", "JobServer", "JobServerError", "run_job_outcome"]

JobOutcome = Optional[tuple[str, Any]]
"""``("completed", return value)``, ``("failed", message)``, or None: the job's process died before reporting."""

_MESSAGE_LIMIT = 2000
"""Characters of a failed job's error message sent back to the launcher."""


class JobServerError(RuntimeError):
    """The job server's process died: the sweep cannot start or finish its jobs."""


class JobServer:
    """Starts the server process; :meth:`submit` runs a job in it, :meth:`finished` waits for one to end.

    Args:
        hydra_context: Hydra's context (config loader, callbacks), inherited by the jobs.
        task_function: The Hydra task (``maze-run``'s job).
        preload: Imports the jobs' modules in the server before its first job (no argument).
    """

    def __init__(self, hydra_context: Any, task_function: Any, preload: Any) -> None:
        context = multiprocessing.get_context("fork")
        request_reader, self._requests = context.Pipe(duplex=False)
        self._results, result_writer = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_serve,
            args=(request_reader, self._requests, result_writer, hydra_context, task_function, preload),
            name="maze-sweep-job-server",
        )
        self._process.start()
        request_reader.close()
        result_writer.close()
        atexit.register(self.close)  # before multiprocessing's exit handler joins the server

    def submit(self, index: int, job_config: DictConfig) -> None:
        """Starts job ``index`` with its composed config in a process forked from the server."""
        try:
            self._requests.send((index, job_config))
        except OSError as error:
            raise JobServerError(f"the sweep's job server is gone ({error}); no job can start") from error

    def finished(self) -> tuple[int, JobOutcome, Optional[int]]:
        """Waits for the next job to end; returns its index, outcome and process exit code."""
        try:
            return self._results.recv()
        except (EOFError, OSError) as error:
            self._process.join(timeout=1)
            raise JobServerError(
                f"the sweep's job server died (exit code {self._process.exitcode}); the running jobs are lost"
            ) from error

    def close(self) -> None:
        """Ends the server after its running jobs (idempotent)."""
        if not self._requests.closed:
            self._requests.close()
            self._process.join()


def _serve(
    requests: Any, request_writer: Any, results: Any, hydra_context: Any, task_function: Any, preload: Any
) -> None:
    """The server process: imports the jobs' modules, then forks a job per request and reports its end.

    Ctrl-C ends it quietly: the sweep command and the jobs get the interrupt themselves.
    """
    request_writer.close()  # the sweep command's copy alone keeps the request pipe open
    try:
        preload()
        _serve_requests(requests, results, hydra_context, task_function)
    except KeyboardInterrupt:
        pass


def _serve_requests(requests: Any, results: Any, hydra_context: Any, task_function: Any) -> None:
    """Forks a job per request until the request pipe closes and every job has ended."""
    context = multiprocessing.get_context("fork")
    running: dict[Any, tuple[int, Any]] = {}
    open_requests = True
    while open_requests or running:
        for ready in multiprocessing.connection.wait([requests, *running] if open_requests else list(running)):
            if ready is not requests:
                index, process = running.pop(ready)
                outcome = _receive(ready)
                process.join()
                results.send((index, outcome, process.exitcode))
                continue
            try:
                index, job_config = requests.recv()
            except (EOFError, OSError):  # the sweep command is done (or gone)
                open_requests = False
                continue
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(
                target=_run_job,
                args=(sender, (requests, results), hydra_context, task_function, job_config),
                name=f"maze-sweep-job-{index}",
            )
            process.start()
            sender.close()
            running[receiver] = (index, process)


def _receive(receiver: Any) -> JobOutcome:
    try:
        return receiver.recv()
    except (EOFError, OSError):  # the process died before sending
        return None
    finally:
        receiver.close()


def _run_job(
    sender: Any, server_pipes: tuple[Any, ...], hydra_context: Any, task_function: Any, job_config: DictConfig
) -> None:
    """A job's process: runs the job (:func:`run_job_outcome`) and sends ``(status, value or message)``."""
    for pipe in server_pipes:
        pipe.close()
    devnull = open(os.devnull, "w", encoding="utf-8")  # the job's output goes to its maze_cli.log
    sys.stdout = sys.stderr = devnull
    outcome = run_job_outcome(hydra_context, task_function, job_config)
    try:
        sender.send(outcome)
    except Exception as error:  # an unpicklable return value
        sender.send(("failed", f"the job's return value cannot be sent back: {error}"))
    sender.close()


def run_job_outcome(hydra_context: Any, task_function: Any, job_config: DictConfig) -> tuple[str, Any]:
    """Runs a job as Hydra's basic launcher would (``run_job``: its sweep subdirectory, ``.hydra/``, ``maze_cli.log``).

    Returns:
        ``("completed", return value)`` or ``("failed", message)``; the job's errors never escape.
    """
    from hydra.core.hydra_config import HydraConfig
    from hydra.core.utils import JobStatus, run_job

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
            return "completed", result._return_value
        return "failed", _failure_message(result._return_value)
    except BaseException as error:  # noqa: BLE001 - reported to the launcher, never lost
        return "failed", _failure_message(error)


def _failure_message(error: BaseException) -> str:
    """A failed job's message: the job's own error for ``JobFailedError`` (maze-run's wrapper), else type and text."""
    from maze.rl.cli import JobFailedError

    message = str(error) if isinstance(error, JobFailedError) else f"{type(error).__name__}: {error}"
    return message[:_MESSAGE_LIMIT]
