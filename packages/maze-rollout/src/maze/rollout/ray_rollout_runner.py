"""RayRolloutRunner (``maze-run runner=ray``): rollout episodes on Ray actors, on this machine or a cluster.

Needs the extra ``maze-rollout[ray]``; without Ray the runner fails when it is built, with
one line naming the extra.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry
from maze.env.log_stats.aggregator import EpisodeStatsBatch
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriterRegistry
from maze.rollout._validation import checked_int
from maze.rollout.output_errors import RolloutOutputError
from maze.rollout.parallel_rollout_runner import RolloutWorkerError, _failure_error, _outputs_summary
from maze.rollout.parallel_rollout_worker import ExceptionReport
from maze.rollout.progress import RolloutProgress
from maze.rollout.ray_cluster import ActorRestarts, RayCluster, actor_start_failure
from maze.rollout.ray_rollout_actor import EpisodeResult, InputDirSnapshot, RolloutActor
from maze.rollout.rollout_job import TRAJECTORY_DIR, RolloutJob
from maze.rollout.rollout_runner import RolloutRunner

logger = logging.getLogger(__name__)

__all__ = ["RayRolloutRunner"]

CALLS_IN_FLIGHT = 2
"""Episodes queued per actor: the next one starts without waiting for the head's round trip."""

DOWN_ACTOR_PAUSE_S = 2.0
"""How long an actor whose call failed because it died gets no episodes (Ray restarts it meanwhile, if it can)."""


class RayRolloutRunner(RolloutRunner):
    """Runs the episodes on ``n_workers`` Ray actors and writes one ``rollout_stats`` table on the head.

    Every actor builds the env stack and the policy of the job once, from their configs, on
    its own node, and plays the episodes the head hands it (episode ``i`` always with the
    ``i``-th env and agent seed, so the statistics equal those of ``runner=sequential`` for
    the same seeds). A training run directory given as ``input_dir`` (policy weights, spaces,
    normalization statistics) is put into Ray's object store once per run; actors on nodes
    without that directory load the policy from a local copy.

    Outputs keep the layout of the other runners: the statistics, trajectory records and
    event logs of each finished episode come back to the head, which writes
    ``trajectory_data/<episode id>.traj.npz`` and ``event_logs/`` into the run directory. With
    ``worker_output_dir`` (a directory every node mounts at the same path) actors write the
    trajectory files there instead (``<worker_output_dir>/trajectory_data/``), staged until
    the head has the episode's report; event logs still come back to the head.

    Fault tolerance: Ray restarts an actor whose process or node died (up to ``max_restarts``
    times per actor); the episodes it had not reported run again with the same seeds (an
    unreported episode left no statistics and no file, so none is counted twice or lost), by
    the other actors while the dead one gets no episodes for :data:`DOWN_ACTOR_PAUSE_S`. The
    restarts are printed after the table and kept in :attr:`restarts`; one more death stops
    the run with a :class:`~maze.rollout.parallel_rollout_runner.RolloutWorkerError`. An
    exception of the env or policy stops the run like in ``runner=parallel`` (traceback and
    seeds to replay the episode).

    Args:
        n_workers: Ray actors (at most one per episode is started).
        n_episodes: Episodes per call.
        max_episode_steps: Env steps after which an episode is truncated; 0: no limit of the runner;
            None (default): the env's own limit (a TimeLimitWrapper in its wrappers, a gymnasium env's
            registered one), else :data:`~maze.rollout.rollout_job.FALLBACK_EPISODE_STEPS`.
        record_trajectory: Write one trajectory file per episode.
        record_event_logs: Write the events of every episode to ``event_logs/``.
        deterministic: Act with the policy's most likely actions.
        ray_address: Cluster to use (None: ``RAY_ADDRESS``, else a local Ray; see :mod:`maze.rollout.ray_cluster`).
        ray_init: Further ``ray.init`` arguments.
        runtime_env: Ray runtime environment of the actors (``working_dir``/``py_modules``: your own modules).
        max_restarts: Restarts of each actor before the run stops.
        worker_output_dir: Shared directory the actors write trajectory files to (None: send them to the head).
        num_cpus_per_worker: CPUs Ray reserves for each actor.
        trajectory_format: ``"data"`` (default): data-only trajectory files (``<episode id>.traj.npz``);
            ``"pickle"``: cloudpickle files, an explicit opt-in for env states with no data-only form.
    """

    def __init__(
        self,
        n_workers: int = 2,
        n_episodes: int = 50,
        max_episode_steps: Optional[int] = None,
        record_trajectory: bool = True,
        record_event_logs: bool = True,
        deterministic: bool = True,
        ray_address: Optional[str] = None,
        ray_init: Optional[Mapping[str, Any]] = None,
        runtime_env: Optional[Mapping[str, Any]] = None,
        max_restarts: int = 3,
        worker_output_dir: Optional[str] = None,
        num_cpus_per_worker: float = 1,
        trajectory_format: str = "data",
    ) -> None:
        super().__init__(
            n_episodes, max_episode_steps, record_trajectory, record_event_logs, deterministic, 1000, trajectory_format
        )
        self.n_workers = checked_int("n_workers", n_workers, minimum=1)
        self.cluster = RayCluster(ray_address, ray_init or {}, runtime_env, max_restarts)
        self.cluster.require_ray()
        self.worker_output_dir = Path(worker_output_dir).expanduser().resolve() if worker_output_dir else None
        self.num_cpus_per_worker = num_cpus_per_worker
        self.restarts = 0
        """Actor restarts of the last call."""
        self.actors: list[Any] = []
        """The Ray actor handles of the running call (empty outside a call)."""

    def run_episodes(
        self, job: RolloutJob, env_seeds: Sequence[int], agent_seeds: Sequence[int], progress: RolloutProgress
    ) -> EpisodeStatsBatch:
        """Runs the episodes on Ray actors (see the class docs)."""
        self.restarts = 0
        progress.begin_startup()  # connecting, starting the actors: until the first episode is reported
        with self.cluster.connected() as ray:
            snapshot = InputDirSnapshot.of(job.input_dir)
            snapshot_ref = [] if snapshot is None else [ray.put(snapshot)]  # carried by each call (see RolloutActor)
            shared_dir = self._shared_trajectory_dir(job)
            actor_class = ray.remote(RolloutActor).options(
                **self.cluster.actor_options(num_cpus=self.num_cpus_per_worker)
            )
            self.actors = [
                actor_class.remote(index, job, None if shared_dir is None else str(shared_dir))
                for index in range(min(self.n_workers, len(env_seeds)))
            ]
            try:
                with job.recording():
                    results = self._dispatch(ray, job, env_seeds, agent_seeds, progress, snapshot_ref)
            finally:
                for actor in self.actors:
                    ray.kill(actor, no_restart=True)
                self.actors = []
        if self.restarts:
            logger.info(f"Ray rollout actors were restarted {self.restarts} time(s)")
        events: dict = {}
        for result in results:
            events.update(result.stats.events)
        return EpisodeStatsBatch(events=events, episodes=[episode for r in results for episode in r.stats.episodes])

    def _shared_trajectory_dir(self, job: RolloutJob) -> Optional[Path]:
        if self.worker_output_dir is None or not job.record_trajectory:
            return None
        return self.worker_output_dir / TRAJECTORY_DIR

    def _dispatch(
        self,
        ray: Any,
        job: RolloutJob,
        env_seeds: Sequence[int],
        agent_seeds: Sequence[int],
        progress: RolloutProgress,
        snapshot_ref: list[Any],
    ) -> list[EpisodeResult]:
        """Hands out the episodes, re-runs those of dead actors; returns the results in episode order."""
        n = len(env_seeds)
        pending = deque(range(n))
        in_flight: dict[Any, tuple[int, int, int]] = {}  # call -> (actor, episode, generation of the actor)
        results: dict[int, EpisodeResult] = {}
        restarts = ActorRestarts(
            self.cluster.max_restarts,
            lambda message: RolloutWorkerError(f"{message}. {_outputs_summary(job, len(results), n, len(results))}"),
            lambda actor: f"Ray rollout actor {actor}",
            "its unfinished episodes run again",
        )
        down_until: dict[int, float] = {}  # actor -> when it gets episodes again (its last call found it dead)
        while pending or in_flight:
            now = time.monotonic()
            for index, actor in enumerate(self.actors):
                if down_until.get(index, now) > now:
                    continue  # the others take the episodes; a lost node's actor may find no CPU to restart on
                queued = sum(1 for owner, _, _ in in_flight.values() if owner == index)
                for _ in range(min(CALLS_IN_FLIGHT - queued, len(pending))):
                    episode = pending.popleft()
                    call = actor.run_episode.remote(episode, env_seeds[episode], agent_seeds[episode], snapshot_ref)
                    in_flight[call] = (index, episode, restarts.generation(index))
            if not in_flight:  # every actor is down: ask again when the first pause ends
                time.sleep(max(0.0, min(down_until.values()) - now))
                continue
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for call in ready:
                index, episode, generation = in_flight.pop(call)
                try:
                    result = ray.get(call)
                except ray.exceptions.RayActorError as error:
                    if error.actor_init_failed:
                        raise RolloutWorkerError(actor_start_failure(f"Ray rollout actor {index}", error)) from None
                    restarts.failed(index, generation, error)
                    down_until[index] = time.monotonic() + DOWN_ACTOR_PAUSE_S
                    pending.appendleft(episode)  # it left no statistics and no file: it runs again
                    continue
                except ray.exceptions.RayError as error:
                    raise RolloutWorkerError(f"Ray rollout actor {index} failed: {error}") from None
                if isinstance(result, ExceptionReport):
                    raise _failure_error(
                        result, env_seeds, agent_seeds, _outputs_summary(job, len(results), n, len(results))
                    )
                restarts.delivered(index, result.incarnation)
                down_until.pop(index, None)
                self._write_outputs(result)
                results[episode] = result
                progress.update(1, result.steps)
                self.restarts = restarts.total
        return [results[episode] for episode in range(n)]

    def _write_outputs(self, result: EpisodeResult) -> None:
        """Writes the episode's records through the head's writers; moves its staged files into place."""
        for record in result.trajectories:
            TrajectoryWriterRegistry.record_trajectory_data(record)
        for event_log in result.event_logs:
            LogEventsWriterRegistry.record_event_logs(event_log)
        for staged in result.trajectory_files:
            path = Path(staged)
            try:
                os.replace(path, path.parent.parent.parent / path.name)
            except OSError as error:
                raise RolloutOutputError(
                    f"the trajectory file {path} of episode {result.episode_index} could not be moved into "
                    f"{path.parent.parent.parent}: {error}; runner.worker_output_dir must be a directory every Ray "
                    "node and the head see at the same path"
                ) from None
