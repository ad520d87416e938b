"""ParallelRolloutRunner: rollouts in several worker processes, statistics gathered in the main process."""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, Optional

import cloudpickle
from maze.env.errors import ConfigurationError, MazeError
from maze.env.log_stats.aggregator import EpisodeStatsBatch
from maze.env.log_stats.log_stats import LogStats
from maze.env.trajectory_recording.trajectory_files import is_trajectory_file
from maze.env.utils.main_guard import check_main_guard, reimport_note
from maze.rollout._validation import checked_int
from maze.rollout.episode_loop import replay_overrides
from maze.rollout.output_errors import RolloutOutputError
from maze.rollout.parallel_rollout_worker import EpisodeStatsReport, ExceptionReport, WorkerReady, rollout_worker
from maze.rollout.progress import RolloutProgress
from maze.rollout.rollout_job import TRAJECTORY_DIR, RolloutJob
from maze.rollout.rollout_runner import RolloutRunner

__all__ = ["ParallelRolloutRunner", "RolloutWorkerError"]

STOP_GRACE_S = 60.0
"""After a worker failed, how long the others may take to finish their running episode before they are stopped."""

_JOIN_TIMEOUT_S = 5.0
"""How long a worker that has reported everything gets to exit before it is terminated."""


class RolloutWorkerError(MazeError, RuntimeError):
    """A rollout worker raised (the message holds its traceback) or died."""


class ParallelRolloutRunner(RolloutRunner):
    """Runs the episodes in ``n_processes`` worker processes.

    The workers share the episodes dynamically (each takes the next one when it is done),
    so long and short episodes balance out. Each worker sends the statistics of its
    finished episodes to the main process (:class:`~maze.rollout.parallel_rollout_worker.EpisodeStatsReport`),
    which writes one ``rollout_stats`` table over all of them. Trajectory files and event
    logs are written by the workers into ``trajectory_data/`` and ``event_logs/`` of the
    current directory.

    When the env or the policy raises in a worker, the worker sends an
    :class:`~maze.rollout.parallel_rollout_worker.ExceptionReport`; the other workers finish
    their running episode (whose files are written) and start no new one, and the call
    raises :class:`RolloutWorkerError` with the worker's traceback, the failing episode's
    seeds and how many episodes finished (a config mistake raises a
    :class:`~maze.env.errors.ConfigurationError` with its one-line message instead, and
    outputs that cannot be written, e.g. on a full disk, a
    :class:`~maze.rollout.output_errors.RolloutOutputError` naming the file and the cause). A
    worker that dies is reported the same way. No worker outlives the call.

    The job (env, wrappers, agent; configs or instances) goes to the workers with
    cloudpickle; the modules they name must be importable there (the main process's
    ``sys.path`` is passed on). With ``forkserver``, the first call of a process starts the
    fork server with maze.env preloaded, so workers start in milliseconds (when something
    else started it before, each worker imports maze.env itself). The progress lines' rates and
    ETA count from the first worker that has built its env and policy
    (:class:`~maze.rollout.parallel_rollout_worker.WorkerReady`); the summary gives the start-up apart.

    Args:
        n_processes: Worker processes (at most one per episode is started).
        n_episodes: Episodes per call.
        max_episode_steps: Env steps after which an episode is truncated; 0: no limit of the runner;
            None (default): the env's own limit (a TimeLimitWrapper in its wrappers, a gymnasium env's
            registered one), else :data:`~maze.rollout.rollout_job.FALLBACK_EPISODE_STEPS`.
        record_trajectory: Write one trajectory file per episode to ``trajectory_data/``.
        record_event_logs: Write the events of every episode to ``event_logs/``.
        deterministic: Act with the policy's most likely actions.
        start_method: ``forkserver``, ``spawn`` or ``fork``; None: ``forkserver`` where available, else ``spawn``.
        normalization_samples: See :class:`~maze.rollout.rollout_runner.RolloutRunner`.
    """

    def __init__(
        self,
        n_processes: int = 5,
        n_episodes: int = 50,
        max_episode_steps: Optional[int] = None,
        record_trajectory: bool = True,
        record_event_logs: bool = True,
        deterministic: bool = True,
        start_method: Optional[str] = None,
        normalization_samples: int = 1000,
        trajectory_format: str = "data",
    ) -> None:
        super().__init__(
            n_episodes,
            max_episode_steps,
            record_trajectory,
            record_event_logs,
            deterministic,
            normalization_samples,
            trajectory_format,
        )
        self.n_processes = checked_int("n_processes", n_processes, minimum=1)
        available = multiprocessing.get_all_start_methods()
        if start_method is None:
            start_method = "forkserver" if "forkserver" in available else "spawn"
        elif start_method not in available:
            raise ConfigurationError(
                f"runner.start_method={start_method!r} is not available here; use one of {available}"
            )
        self.start_method = start_method

    def run_episodes(
        self,
        job: RolloutJob,
        env_seeds: Sequence[int],
        agent_seeds: Sequence[int],
        progress: RolloutProgress,
        first_episode: int = 0,
    ) -> EpisodeStatsBatch:
        """Runs the episodes in worker processes (see the class docs).

        Args:
            job: The env, wrappers, agent and recording settings.
            env_seeds: Env seed of every episode of the rollout.
            agent_seeds: Agent seed of every episode of the rollout.
            progress: Told about the workers' start-up and every finished episode.
            first_episode: Episodes before it already finished elsewhere (in this process, with
                their files written): the workers run the episodes from this index on.

        Returns:
            The statistics of the episodes from ``first_episode`` on, in episode order.
        """
        try:
            payload = cloudpickle.dumps(job)
        except Exception as error:
            raise ConfigurationError(
                f"the env, wrappers or agent cannot be sent to the rollout workers ({type(error).__name__}: {error}); "
                "pass configs (or picklable objects), or use runner=sequential"
            ) from None
        return self._run_in_workers(job, payload, env_seeds, agent_seeds, progress, first_episode)

    def worker_count(self, episodes: int) -> int:
        """Worker processes started for ``episodes`` episodes: ``n_processes``, at most one per episode."""
        return min(self.n_processes, episodes)

    def _run_in_workers(
        self,
        job: RolloutJob,
        payload: bytes,
        env_seeds: Sequence[int],
        agent_seeds: Sequence[int],
        progress: RolloutProgress,
        first_episode: int,
    ) -> EpisodeStatsBatch:
        """:meth:`run_episodes` for the job pickled already (``payload``, what the workers unpickle)."""
        check_main_guard(self.start_method, "ParallelRolloutRunner", alternative="start_method='fork'")
        context = multiprocessing.get_context(self.start_method)
        if self.start_method == "forkserver":  # workers then start with maze.env imported (no effect once running)
            context.set_forkserver_preload(["__main__", "maze.rollout.parallel_rollout_worker"])
        n_episodes = len(env_seeds)
        files_before = _trajectory_files(job)
        next_episode = context.Value("q", first_episode)
        events_lock = context.Lock()
        processes: list[Any] = []
        connections: list[Connection] = []
        finished_normally = False
        progress.begin_startup()
        try:
            for index in range(self.worker_count(n_episodes - first_episode)):
                receiver, sender = context.Pipe(duplex=False)
                process = context.Process(
                    target=rollout_worker,
                    args=(index, payload, list(sys.path), sender, next_episode, env_seeds, agent_seeds, events_lock),
                    name=f"ParallelRolloutRunner-worker-{index}",
                    daemon=True,
                )
                process.start()
                sender.close()
                processes.append(process)
                connections.append(receiver)
            stats, failure = _collect(connections, next_episode, n_episodes, progress)
            finished_normally = True
        finally:
            _stop(processes, graceful=finished_normally)
            for connection in connections:
                connection.close()
        written = len(_trajectory_files(job) - files_before) + (first_episode if job.record_trajectory else 0)
        outputs = _outputs_summary(job, first_episode + len(stats), n_episodes, written)
        if failure is not None:
            raise _failure_error(failure, env_seeds, agent_seeds, outputs)
        if len(stats) < n_episodes - first_episode:
            raise _death_error(processes, outputs, self.start_method)
        episodes = [stats[i][1] for i in range(first_episode, n_episodes)]
        return EpisodeStatsBatch(events=_events_of(stats), episodes=episodes)


def _collect(
    connections: list[Connection], next_episode: Any, n_episodes: int, progress: RolloutProgress
) -> tuple[dict[int, tuple[dict, LogStats]], Optional[ExceptionReport]]:
    """Receives reports until every worker has closed its connection; the first ready worker ends the start-up.

    Returns:
        ``{episode index: (its events, its statistics)}`` and the first exception report (None: none).
    """
    stats: dict[int, tuple[dict, LogStats]] = {}
    failure: Optional[ExceptionReport] = None
    open_connections = list(connections)
    deadline: Optional[float] = None
    while open_connections:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready = wait(open_connections, timeout)
        if not ready:
            break  # the grace period after a failure is over: the remaining workers get stopped
        for connection in ready:
            try:
                report = connection.recv()
            except EOFError:
                open_connections.remove(connection)
                continue
            if isinstance(report, WorkerReady):
                progress.end_startup()
            elif isinstance(report, EpisodeStatsReport):
                for episode, episode_stats in zip(report.episode_indices, report.stats.episodes, strict=True):
                    stats[episode] = (report.stats.events, episode_stats)
                progress.update(len(report.episode_indices), sum(report.step_counts))
            elif failure is None:
                failure = report
                with next_episode.get_lock():
                    next_episode.value = n_episodes  # no worker starts another episode
                deadline = time.monotonic() + STOP_GRACE_S
    return stats, failure


def _trajectory_files(job: RolloutJob) -> set[str]:
    """The names of the trajectory files in the job's output directory (empty when not recording)."""
    directory = job.output_dir / TRAJECTORY_DIR
    if not (job.record_trajectory and directory.is_dir()):
        return set()
    return {path.name for path in directory.iterdir() if is_trajectory_file(path)}


def _outputs_summary(job: RolloutJob, reported: int, n_episodes: int, written: int) -> str:
    """What a failed run left behind: reported episodes and, when recording, the trajectory files written.

    A worker killed between writing an episode's file and reporting it leaves more files than
    reported episodes; the count of files comes from the directory, not from the reports.
    """
    text = f"{reported} of {n_episodes} episodes were reported"
    if job.record_trajectory:
        text += f"; {written} trajectory files were written to {job.output_dir / TRAJECTORY_DIR}"
    return f"{text} (outputs in {job.output_dir})."


def _events_of(stats: dict[int, tuple[dict, LogStats]]) -> dict:
    events: dict = {}
    for episode_events, _ in stats.values():
        events.update(episode_events)
    return events


def _stop(processes: list[Any], graceful: bool) -> None:
    """Joins the workers; those still running are terminated, then killed."""
    for process in processes:
        if process.pid is None:
            continue
        process.join(_JOIN_TIMEOUT_S if graceful else 0)
        if process.is_alive():
            process.terminate()
            process.join(1.0)
        if process.is_alive():
            process.kill()
            process.join()


def _failure_error(
    report: ExceptionReport, env_seeds: Sequence[int], agent_seeds: Sequence[int], outputs: str
) -> MazeError:
    """The error raised in the main process for a worker's exception report."""
    if report.configuration_error and report.episode_index is None:
        return ConfigurationError(report.message)
    if report.output_error:  # the message names the file and the cause; the traceback would blame the env
        return RolloutOutputError(f"rollout worker {report.worker_index} stopped: {report.message}. {outputs}")
    if report.episode_index is None:
        where = "outside an episode (building the env or the policy, or sending reports)"
        reproduce = "Fix the env or policy and run again."
    else:
        env_seed, agent_seed = env_seeds[report.episode_index], agent_seeds[report.episode_index]
        where = f"in episode {report.episode_index} (env seed {env_seed}, agent seed {agent_seed})"
        reproduce = (
            f"Fix the env or policy and run again; {replay_overrides(env_seed, agent_seed)} replays the episode in "
            "one process."
        )
    return RolloutWorkerError(
        f"rollout worker {report.worker_index} failed {where} with {report.error_type}: {report.message}\n"
        f"--- traceback of the worker ---\n{report.traceback.rstrip()}\n--- end of the traceback ---\n"
        f"{outputs} {reproduce}"
    )


def _death_error(processes: list[Any], outputs: str, start_method: str) -> RolloutWorkerError:
    """The error raised when workers ended without reporting all episodes (killed, crashed)."""
    dead = [
        f"worker {index} (exit code {process.exitcode})" for index, process in enumerate(processes) if process.exitcode
    ]
    detail = ", ".join(dead) if dead else "the workers ended early"
    return RolloutWorkerError(
        f"rollout workers died before all episodes were reported: {detail}. A negative exit code is the signal that "
        f"ended the process (e.g. -9: killed, often for lack of memory); see the output above for a crash report."
        f"{reimport_note(start_method) if any(process.exitcode == 1 for process in processes) else ''} {outputs}"
    )
