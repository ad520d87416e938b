"""The Ray actor of RayRolloutRunner: one env stack and one policy, built once from the job, playing episodes on request.

The module does not import Ray: the runner turns :class:`RolloutActor` into a Ray actor
class (``ray.remote(RolloutActor)``) when it runs.

An actor's episode results carry their statistics and, unless trajectories go to a shared
directory, the episode's trajectory record and event log: the head writes them into the
run directory. An episode that did not finish (its actor died) therefore leaves no file
and no statistics behind, and its re-run is the only copy.
"""

from __future__ import annotations

import os
import tempfile
import traceback
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional, Union

from maze.env.errors import ConfigurationError
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.log_events_writer import LogEventsWriter
from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry
from maze.env.log_stats.aggregator import EpisodeStatsBatch
from maze.env.trajectory_recording.records import TrajectoryRecord
from maze.env.trajectory_recording.trajectory_files import TrajectoryWriterFile
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriter, TrajectoryWriterRegistry
from maze.rollout.episode_loop import run_episode
from maze.rollout.output_errors import GuardedTrajectoryWriter, RolloutOutputError
from maze.rollout.parallel_rollout_worker import ExceptionReport
from maze.rollout.ray_cluster import new_incarnation
from maze.rollout.rollout_job import RolloutJob

__all__ = ["EpisodeResult", "InputDirSnapshot", "RolloutActor", "STAGING_DIR"]

STAGING_DIR = ".incomplete"
"""Subdirectory of a shared trajectory directory where each actor stages its files in a directory of its own; the
head moves the files of reported episodes out (an unreported episode's file stays behind, never counted)."""

_SKIPPED_PREFIXES = ("events.out.tfevents",)
"""Files of an input directory that no policy loads (TensorBoard logs) and that are not shipped."""


@dataclass
class InputDirSnapshot:
    """The files of a training run directory (``input_dir``), put into Ray's object store once per run.

    An actor on a node without that directory writes the files into a local temporary
    directory and points the job there (policy weights, spaces, model config and
    normalization statistics all come from it).

    Attributes:
        directory: The run directory on the head.
        files: File name -> content, for the regular files at its top level.
    """

    directory: str
    files: dict[str, bytes] = field(default_factory=dict)

    @classmethod
    def of(cls, directory: Optional[Path]) -> Optional[InputDirSnapshot]:
        """The snapshot of ``directory`` (None: no input directory)."""
        if directory is None:
            return None
        files = {
            path.name: path.read_bytes()
            for path in sorted(directory.iterdir())
            if path.is_file() and not path.name.startswith(_SKIPPED_PREFIXES)
        }
        return cls(str(directory), files)

    def localize(self, job: RolloutJob) -> RolloutJob:
        """``job`` unchanged where the directory exists, else pointing into a local copy of the files."""
        if Path(self.directory).is_dir():
            return job
        local = Path(tempfile.mkdtemp(prefix="maze-input-dir-"))
        for name, content in self.files.items():
            (local / name).write_bytes(content)
        return replace(
            job,
            agent=_relocated(job.agent, self.directory, str(local)),
            env=_relocated(job.env, self.directory, str(local)),
            input_dir=local,
        )


def _relocated(value: Any, old: str, new: str) -> Any:
    """``value`` with every string under the directory ``old`` moved to ``new`` (dicts and lists recursively)."""
    if isinstance(value, str) and (value == old or value.startswith(old.rstrip("/") + "/")):
        return new + value[len(old.rstrip("/")) :]
    if isinstance(value, dict):
        return {key: _relocated(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_relocated(item, old, new) for item in value]
    return value


@dataclass
class EpisodeResult:
    """One finished episode of an actor (sent back to the head).

    Attributes:
        episode_index: Index of the episode in the rollout.
        steps: Env steps of the episode.
        stats: The episode's statistics.
        trajectories: Its trajectory records (empty when not recording, or when written to a shared directory).
        trajectory_files: Paths of the files the actor staged in a shared trajectory directory.
        event_logs: Its event logs (empty when not recording them).
        incarnation: The id of the actor instance that played it (see :class:`~maze.rollout.ray_cluster.ActorRestarts`).
    """

    episode_index: int
    steps: int
    stats: EpisodeStatsBatch
    incarnation: str = ""
    trajectories: list[TrajectoryRecord] = field(default_factory=list)
    trajectory_files: list[str] = field(default_factory=list)
    event_logs: list[EpisodeEventLog] = field(default_factory=list)


class _Collected(TrajectoryWriter, LogEventsWriter):
    """Keeps the records handed to the writer registries until they are taken (both kinds: one class)."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def write(self, record: Union[TrajectoryRecord, EpisodeEventLog]) -> None:
        """Keeps the record; an event log is built now into a plain (picklable) one."""
        if isinstance(record, EpisodeEventLog):
            record = EpisodeEventLog(record.episode_id, list(record.step_event_logs))
        self.items.append(record)

    def take(self) -> list[Any]:
        """The records kept since the last call."""
        items, self.items = self.items, []
        return items


class _StagedFiles(TrajectoryWriter):
    """Writes trajectory files into the actor's own staging directory and remembers them until they are taken."""

    def __init__(self, directory: Path, trajectory_format: str = "data") -> None:
        self.file_writer = TrajectoryWriterFile(directory, format=trajectory_format)
        self.writer = GuardedTrajectoryWriter(self.file_writer, directory)
        self.directory = directory
        self.paths: list[str] = []

    def write(self, episode_record: TrajectoryRecord) -> None:
        """Writes ``<staging dir>/<record id>.traj.npz`` (or ``.pkl``) and keeps its path."""
        self.writer.write(episode_record)
        self.paths.append(str(self.file_writer.path_of(episode_record)))

    def take(self) -> list[str]:
        """The paths written since the last call."""
        paths, self.paths = self.paths, []
        return paths


class RolloutActor:
    """Builds the job's env stack and policy once, then plays the episodes it is asked for.

    The constructor takes only small values: Ray keeps no constructor argument that lives in its
    object store for an actor's restarts (ray-project/ray#53727, reported with an error-level
    line at the actor's start). Where the job's ``input_dir`` is missing on the actor's node,
    the actor builds on its first episode call instead, from the snapshot of the directory that
    every call carries (a reference, fetched only then; a restarted actor fetches it again).

    Errors never escape a call: building errors and env or policy exceptions come back as
    an :class:`~maze.rollout.parallel_rollout_worker.ExceptionReport` (as from the local
    parallel workers), so the head tells a failing env (stop the run) from a dead actor
    process (restart it, re-run its episode).

    Args:
        actor_index: Index of the actor (for messages).
        job: The rollout job (configs are built here, on the actor's node).
        trajectory_dir: The trajectory directory on a filesystem shared with the head: files are
            staged below it (:data:`STAGING_DIR`) instead of being sent back (None: send them back).
    """

    def __init__(
        self,
        actor_index: int,
        job: RolloutJob,
        trajectory_dir: Optional[str] = None,
    ) -> None:
        self.actor_index = actor_index
        self.incarnation = new_incarnation()
        self.failure: Optional[ExceptionReport] = None
        self.env: Any = None
        self.job = job
        self.trajectory_dir = trajectory_dir
        self.built = False
        if job.input_dir is None or Path(job.input_dir).is_dir():
            self._build(job)

    def _build(self, job: RolloutJob) -> None:
        """Builds the env stack, the policy and the output writers of ``job`` (a failure is kept for the next call)."""
        self.built = True
        try:
            self.job = job
            self.env = self.job.build_env()
            self.policy = self.job.build_policy(self.env)
            self._collected = _Collected()
            self._staged = None
            if self.trajectory_dir:
                self._staged = _StagedFiles(
                    Path(self.trajectory_dir) / STAGING_DIR / f"actor-{uuid.uuid4().hex}", self.job.trajectory_format
                )
            if self.job.record_trajectory:
                TrajectoryWriterRegistry.register_writer(self._staged or self._collected)
            if self.job.record_event_logs:
                LogEventsWriterRegistry.register_writer(self._collected)
        except Exception as error:
            self.failure = self._report(None, error)

    def pid(self) -> int:
        """The actor's process id (tests kill it)."""
        return os.getpid()

    def run_episode(
        self, episode_index: int, env_seed: int, agent_seed: int, input_snapshot: Sequence[Any] = ()
    ) -> Union[EpisodeResult, ExceptionReport]:
        """Plays one episode with the given seeds (building the env stack first where the constructor could not).

        Args:
            episode_index: The episode's index (for messages).
            env_seed: The env's seed.
            agent_seed: The policy's seed.
            input_snapshot: For a job with an ``input_dir``: ``[ObjectRef]`` of its :class:`InputDirSnapshot`
                (nested in a list, so that Ray passes the reference and the actor fetches the files only
                when the directory is missing on its node).

        Returns:
            The episode's result, or the report of the exception raised while building or playing.
        """
        if not self.built:
            self._build(self._localized_job(input_snapshot))
        if self.failure is not None:
            return self.failure
        try:
            steps = run_episode(self.env, self.policy, env_seed, agent_seed, self.job.deterministic)
            stats = self.env.take_episode_stats()
        except Exception as error:
            self._collected.take()  # the failed episode's partial records are not sent
            return self._report(episode_index, error)
        records = self._collected.take()
        return EpisodeResult(
            episode_index=episode_index,
            steps=steps,
            stats=stats,
            incarnation=self.incarnation,
            trajectories=[record for record in records if isinstance(record, TrajectoryRecord)],
            trajectory_files=self._staged.take() if self._staged is not None else [],
            event_logs=[record for record in records if isinstance(record, EpisodeEventLog)],
        )

    def _localized_job(self, input_snapshot: Sequence[Any]) -> RolloutJob:
        """The job pointing into a local copy of its ``input_dir`` (from the snapshot the call carries)."""
        import ray

        if not input_snapshot:
            return self.job  # building fails naming the missing directory
        return ray.get(input_snapshot[0]).localize(self.job)

    def _report(self, episode_index: Optional[int], error: Exception) -> ExceptionReport:
        return ExceptionReport(
            worker_index=self.actor_index,
            episode_index=episode_index,
            error_type=f"{type(error).__module__}.{type(error).__qualname__}",
            message=str(error),
            traceback=traceback.format_exc(),
            configuration_error=isinstance(error, ConfigurationError),
            output_error=isinstance(error, RolloutOutputError),
        )
