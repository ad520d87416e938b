"""The worker process of ParallelRolloutRunner and the reports it sends to the main process.

Each worker builds the env stack and the policy of the job once, says so
(:class:`WorkerReady`: the main process's rates count from the first one), then takes episode
indices from a counter shared by all workers until none are left. It reports the
statistics of finished episodes (:class:`EpisodeStatsReport`, batched a few times per
second) and, when the env or the policy raises, one :class:`ExceptionReport` with the
traceback, after which it stops. Trajectory files and event logs are written by the
worker itself, into the job's output directory; when they cannot be written (a full disk),
the report says so (``output_error``) instead of blaming the env or the policy.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Optional

import cloudpickle
from maze.env.errors import ConfigurationError
from maze.env.log_stats.aggregator import EpisodeStatsBatch
from maze.rollout.episode_loop import run_episode
from maze.rollout.output_errors import RolloutOutputError

__all__ = ["EpisodeStatsReport", "ExceptionReport", "WorkerReady", "rollout_worker"]

REPORT_INTERVAL_S = 0.25
"""A worker sends the statistics of its finished episodes at most this often (and when it ends)."""


@dataclass
class WorkerReady:
    """A worker has built the env stack and the policy and starts taking episodes (picklable).

    Attributes:
        worker_index: The worker that is ready.
    """

    worker_index: int


@dataclass
class EpisodeStatsReport:
    """Statistics of episodes a worker finished (picklable).

    Attributes:
        worker_index: The worker that ran the episodes.
        episode_indices: Index of each episode in the rollout.
        step_counts: Steps of each episode.
        stats: The episodes' statistics, one entry per index of ``episode_indices``, same order.
    """

    worker_index: int
    episode_indices: list[int] = field(default_factory=list)
    step_counts: list[int] = field(default_factory=list)
    stats: EpisodeStatsBatch = field(default_factory=EpisodeStatsBatch)


@dataclass
class ExceptionReport:
    """An exception raised in a worker (picklable: the exception travels as text).

    Attributes:
        worker_index: The worker that raised.
        episode_index: The episode it was running; None: it failed while building the env or policy.
        error_type: Qualified class name of the exception.
        message: ``str`` of the exception.
        traceback: The formatted traceback.
        configuration_error: True for a :class:`~maze.env.errors.ConfigurationError` (a config mistake).
        output_error: True for a :class:`~maze.rollout.output_errors.RolloutOutputError` (the outputs
            could not be written, e.g. the disk is full; ``message`` names the file and the cause).
    """

    worker_index: int
    episode_index: Optional[int]
    error_type: str
    message: str
    traceback: str
    configuration_error: bool
    output_error: bool = False


def rollout_worker(
    worker_index: int,
    job_payload: bytes,
    sys_path: Sequence[str],
    connection: Connection,
    next_episode: Any,
    env_seeds: Sequence[int],
    agent_seeds: Sequence[int],
    events_lock: Any,
) -> None:
    """Main function of a worker process (see the module docs).

    Args:
        worker_index: Index of this worker.
        job_payload: The :class:`~maze.rollout.rollout_job.RolloutJob`, cloudpickled.
        sys_path: The main process's ``sys.path``, so the job's modules import here too.
        connection: Where the reports go; closed when the worker ends.
        next_episode: Shared counter (``multiprocessing.Value`` with a lock) of the next episode to run.
        env_seeds: Env seed of every episode of the rollout.
        agent_seeds: Agent seed of every episode of the rollout.
        events_lock: Lock held while writing event logs (the files are shared by all workers).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process handles Ctrl-C and stops the workers
    sys.path.extend(entry for entry in sys_path if entry not in sys.path)
    pending = EpisodeStatsReport(worker_index)
    episode: Optional[int] = None
    try:
        job = cloudpickle.loads(job_payload)
        os.chdir(job.output_dir)
        env = job.build_env()
        try:
            policy = job.build_policy(env)
            connection.send(WorkerReady(worker_index))
            last_report = time.monotonic()
            with job.recording(events_lock):
                while (episode := _take_episode(next_episode, len(env_seeds))) is not None:
                    steps = run_episode(env, policy, env_seeds[episode], agent_seeds[episode], job.deterministic)
                    _add_episode(pending, episode, steps, env.take_episode_stats())
                    episode = None
                    if time.monotonic() - last_report >= REPORT_INTERVAL_S:
                        pending = _send(connection, pending)
                        last_report = time.monotonic()
        finally:
            env.close()  # after the recording block: an interrupted episode writes no files
        _send(connection, pending)
    except Exception as error:
        _send(connection, pending)
        connection.send(
            ExceptionReport(
                worker_index=worker_index,
                episode_index=episode,
                error_type=f"{type(error).__module__}.{type(error).__qualname__}",
                message=str(error),
                traceback=traceback.format_exc(),
                configuration_error=isinstance(error, ConfigurationError),
                output_error=isinstance(error, RolloutOutputError),
            )
        )
    finally:
        connection.close()


def _take_episode(next_episode: Any, n_episodes: int) -> Optional[int]:
    """The next episode index to run, or None when all are taken (or the main process stopped the rollout)."""
    with next_episode.get_lock():
        episode = next_episode.value
        if episode >= n_episodes:
            return None
        next_episode.value = episode + 1
    return episode


def _add_episode(report: EpisodeStatsReport, episode: int, steps: int, stats: EpisodeStatsBatch) -> None:
    report.episode_indices.append(episode)
    report.step_counts.append(steps)
    report.stats.events.update(stats.events)
    report.stats.episodes.extend(stats.episodes)


def _send(connection: Connection, report: EpisodeStatsReport) -> EpisodeStatsReport:
    """Sends ``report`` if it holds episodes; returns a fresh, empty report."""
    if report.episode_indices:
        connection.send(report)
    return EpisodeStatsReport(report.worker_index)
