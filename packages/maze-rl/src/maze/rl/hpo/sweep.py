"""The loop of a hyper-parameter sweep: ask a batch, launch it, tell the objectives, summarize.

The objective of a job is what its runner's ``run()`` returns (for training runs the best
evaluation reward). A job that fails (raises, dies, or returns no number) is recorded as
failed and told to the optimizer as such; the sweep goes on. At the end the sweep
directory holds one subdirectory per job plus ``sweep_summary.md`` (the table printed on
the console: parameters, objective and status per job, the failed jobs with their
directories, and the best job) and ``sweep_summary.json``.

Hydra's basic sweeper (plain ``--multirun`` over ``key=a,b``) with maze's local launcher gets
the same summary from :class:`BasicSweepRecorder`: every job runs, failed ones included.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

from maze.rl.hpo.optimizers import AskTellOptimizer
from maze.rl.hpo.search_space import SearchSpace
from omegaconf import DictConfig, OmegaConf

__all__ = ["BasicSweepRecorder", "JobRecord", "SweepResult", "run_sweep", "write_summary"]

SUMMARY_FILE = "sweep_summary.md"
SUMMARY_JSON = "sweep_summary.json"


@dataclass
class JobRecord:
    """One job of a sweep.

    Attributes:
        number: The job number (its subdirectory name by default).
        params: The searched parameters of the job.
        objective: Its objective (None if it failed).
        status: ``completed`` or ``failed``.
        error: Why it failed (empty if it did not).
        directory: Its run directory.
    """

    number: int
    params: dict[str, Any]
    objective: Optional[float]
    status: str
    error: str = ""
    directory: str = ""


@dataclass
class SweepResult:
    """All jobs of a sweep and the best one (None if every job failed, or for unranked sweeps).

    Attributes:
        jobs: The jobs, in order of their numbers.
        maximize: Whether a higher objective is better.
        ranked: Whether the objectives rank the jobs (False for Hydra's basic sweeper, which
            has no direction).
    """

    jobs: list[JobRecord] = field(default_factory=list)
    maximize: bool = True
    ranked: bool = True

    @property
    def failed(self) -> list[JobRecord]:
        """The jobs that failed."""
        return [job for job in self.jobs if job.status != "completed"]

    @property
    def best(self) -> Optional[JobRecord]:
        """The completed job with the best objective."""
        done = [job for job in self.jobs if job.objective is not None]
        if not done or not self.ranked:
            return None
        return (max if self.maximize else min)(done, key=lambda job: job.objective)

    def table(self) -> str:
        """The jobs as a markdown table, then the best job."""
        keys = list(self.jobs[0].params) if self.jobs else []
        lines = [
            "| job | " + " | ".join(keys) + " | objective | status |",
            "|---:|" + "---:|" * len(keys) + "---:|---|",
        ]
        best = self.best
        for job in self.jobs:
            values = " | ".join(_format(job.params[key]) for key in keys)
            objective = "—" if job.objective is None else f"{job.objective:.3f}"
            status = job.status if not job.error else f"{job.status}: {job.error.splitlines()[0][:120]}"
            marker = " **best**" if job is best else ""
            lines.append(f"| {job.number}{marker} | {values} | {objective} | {status} |")
        lines.append("")
        lines.append(f"{len(self.jobs)} jobs, {len(self.failed)} failed.")
        for job in self.failed:
            lines.append(
                f"Failed: job {job.number} ({job.directory}): {job.error.splitlines()[0] if job.error else ''}"
            )
        if best is not None:
            params = " ".join(f"{key}={_format(value)}" for key, value in best.params.items())
            lines.append(f"Best: job {best.number} ({best.directory}): {params} -> objective {best.objective:.3f}")
        return "\n".join(lines)


def _format(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def run_sweep(
    launcher: Any,
    config: DictConfig,
    space: SearchSpace,
    optimizer: AskTellOptimizer,
    title: str,
    override: Callable[[str, Any], str],
) -> SweepResult:
    """Runs ``optimizer.budget`` jobs, ``optimizer.num_workers`` at a time, and writes the summary.

    With maze's local launcher the next job is asked for and started as soon as one ends (the
    optimizer hears every result as it comes); other launchers run batches of ``num_workers``.

    Args:
        launcher: The Hydra launcher (``launch(job_overrides, initial_job_idx)``).
        config: The sweep config (``hydra.sweep.dir``).
        space: The searched dimensions and the fixed overrides.
        optimizer: Suggests the parameters.
        title: First line of the summary (e.g. the optimizer's name).
        override: Writes one ``key=value`` override.

    Raises:
        JobFailedError: When every job failed (after the summary).
    """
    from maze.rl.cli import JobFailedError

    sweep_dir = Path(str(config.hydra.sweep.dir))
    sweep_dir.mkdir(parents=True, exist_ok=True)
    OmegaConf.save(config, sweep_dir / "multirun.yaml")
    result = SweepResult(maximize=optimizer.maximize)
    asked: list[tuple[Any, dict[str, Any]]] = []

    def ask() -> list[str]:
        asked.append(optimizer.ask())
        return [*space.fixed, *(override(key, value) for key, value in asked[-1][1].items())]

    def tell(number: int, job_return: Any) -> None:
        token, params = asked[number]
        record = _record(number, params, job_return)
        optimizer.tell(token, record.objective)
        result.jobs.append(record)

    if hasattr(launcher, "stream"):  # maze's local launcher: the next job starts as soon as a process is free
        for number, job_return in launcher.stream(
            lambda: ask() if len(asked) < optimizer.budget else None,
            initial_job_idx=0,
            max_parallel=optimizer.num_workers,
        ):
            tell(number, job_return)
        result.jobs.sort(key=lambda job: job.number)
    while len(asked) < optimizer.budget:  # other launchers: batches of num_workers jobs
        first = len(asked)
        batch = [ask() for _ in range(min(optimizer.num_workers, optimizer.budget - first))]
        for offset, job_return in enumerate(launcher.launch(batch, initial_job_idx=first)):
            tell(first + offset, job_return)
    write_summary(sweep_dir, title, result)
    if result.best is None:
        raise JobFailedError(f"all {len(result.jobs)} jobs of the sweep failed; see {sweep_dir / SUMMARY_FILE}")
    return result


def write_summary(sweep_dir: Path, title: str, result: SweepResult) -> None:
    """Prints the summary (``title``, then the table) and writes it to the sweep directory (markdown and JSON)."""
    text = f"{title}\n\n{result.table()}"
    print(f"\n{text}\n", flush=True)
    (sweep_dir / SUMMARY_FILE).write_text(text + "\n", encoding="utf-8")
    summary = {"maximize": result.maximize, "jobs": [asdict(job) for job in result.jobs]}
    summary["best"] = asdict(result.best) if result.best is not None else None
    (sweep_dir / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")


class BasicSweepRecorder:
    """Hydra's basic sweeper on maze's local launcher: all jobs run, then a summary; exit 1 if any failed.

    Hydra's ``BasicSweeper`` reads the return value of every job of a batch, which raises for
    the first failed one: the sweep would end there, later batches would never run and no
    summary would say which jobs failed. The launcher hands each batch's results to
    :meth:`record` instead, which keeps them and gives the sweeper failed jobs as completed
    jobs without a value. After the sweep's last job it prints and writes the summary
    (:func:`write_summary`) and raises ``JobFailedError`` if any job failed.

    Args:
        total_jobs: The number of jobs of the sweep.
        sweep_dir: The sweep directory (``hydra.sweep.dir``).
    """

    def __init__(self, total_jobs: int, sweep_dir: Path) -> None:
        self.total_jobs = total_jobs
        self.sweep_dir = sweep_dir
        self.records: list[tuple[JobRecord, Sequence[str]]] = []

    def record(self, job_returns: Sequence[Any], initial_job_idx: int) -> list[Any]:
        """Records a batch's JobReturns; returns them with failed jobs marked completed (value None).

        Raises:
            JobFailedError: After the sweep's last job, if any job failed (the summary is written first).
        """
        from hydra.core.utils import JobStatus

        for offset, job_return in enumerate(job_returns):
            number = initial_job_idx + offset
            self.records.append((_record(number, {}, job_return, objective_required=False), job_return.overrides))
        if len(self.records) >= self.total_jobs:
            self._finish()
        return [
            job_return
            if job_return.status == JobStatus.COMPLETED
            else replace(job_return, status=JobStatus.COMPLETED, _return_value=None)
            for job_return in job_returns
        ]

    def _finish(self) -> None:
        """Writes the summary; raises ``JobFailedError`` if any job failed."""
        from maze.rl.cli import JobFailedError

        jobs = _with_varying_params(self.records)
        result = SweepResult(sorted(jobs, key=lambda job: job.number), ranked=False)
        write_summary(self.sweep_dir, f"Sweep: {len(jobs)} jobs (basic sweeper, local launcher)", result)
        if result.failed:
            raise JobFailedError(f"{len(result.failed)} of {len(jobs)} jobs of the sweep failed")


def _with_varying_params(records: Sequence[tuple[JobRecord, Sequence[str]]]) -> list[JobRecord]:
    """The job records, each with its overrides that differ between the jobs as params (all if none differ)."""
    overrides = [dict(override.split("=", 1) for override in job_overrides or ()) for _, job_overrides in records]
    keys = list(dict.fromkeys(key for job in overrides for key in job))
    varying = [key for key in keys if len({job.get(key) for job in overrides}) > 1] or keys
    return [
        replace(record, params={key: job.get(key, "") for key in varying})
        for (record, _), job in zip(records, overrides, strict=True)
    ]


def _record(number: int, params: dict[str, Any], job_return: Any, objective_required: bool = True) -> JobRecord:
    """The record of a finished job: its objective, or why it failed.

    Args:
        number: The job number.
        params: The searched parameters of the job.
        job_return: Hydra's JobReturn of the job.
        objective_required: A completed job without a finite number counts as failed (the
            optimizers need one); without, it is completed with objective None.
    """
    from hydra.core.utils import JobStatus

    directory = str(job_return.working_dir or "")
    if job_return.status != JobStatus.COMPLETED:
        return JobRecord(number, params, None, "failed", str(job_return._return_value), directory)
    value = job_return._return_value
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        if not objective_required:
            return JobRecord(number, params, None, "completed", "", directory)
        return JobRecord(number, params, None, "failed", f"the job returned no finite objective: {value!r}", directory)
    return JobRecord(number, params, float(value), "completed", "", directory)
