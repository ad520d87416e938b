"""AutoRolloutRunner (``maze-run runner=auto``): sequential or parallel by the job's size and the machine.

Worker processes pay off only when the episodes take long enough to amortize starting
them. Measured with ``maze-run -cn conf_rollout`` (random policy, 2-core machine under load,
fresh process each): starting the workers costs about 1.1 s more than rolling out in the
main process (CartPole-v1: 10 episodes 3.3 s parallel vs 2.1 s sequential; LunarLander-v3:
2.5 s vs 1.3 s; the greedy Cutting-2D policy, 2 episodes: 2.5 s vs 1.9 s); CartPole-v1
crossed over between 200 episodes (4.6 s parallel vs 3.9 s sequential) and 1000 episodes
(5.2 s vs 6.0 s), i.e. at about 2.5 s of sequential rollout. That is the rule below with
two workers: parallel wins once the remaining rollout takes more than twice the start-up.

Workers of a torch policy (``policy=torch_policy``) also import torch, which the main process
did before it built the policy: 10 such episodes took 6.6 s sequential and 23.6 s with the
5 workers of ``runner=parallel`` (16.8 s of start-up, the same machine under heavier load);
an idle 2-core machine starts a torch policy in 1.97 s against 0.30 s without torch
(maze-deploy's cold-start benchmark), hence :data:`TORCH_IMPORT_S`.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from collections.abc import Sequence
from typing import Optional

import cloudpickle
from maze.env.log_stats.aggregator import EpisodeStatsBatch
from maze.env.utils.main_guard import unguarded_main_script
from maze.rollout.parallel_rollout_runner import ParallelRolloutRunner
from maze.rollout.progress import RolloutProgress
from maze.rollout.rollout_job import RolloutJob
from maze.rollout.sequential_rollout_runner import roll_out_in_process

logger = logging.getLogger(__name__)

__all__ = [
    "AutoRolloutRunner",
    "TORCH_IMPORT_S",
    "WORKER_STARTUP_S",
    "pays_to_parallelize",
    "own_load_share",
    "usable_cores",
    "worker_startup_seconds",
]

WORKER_STARTUP_S = 1.1
"""Measured seconds that starting rollout workers costs on top of building the env and the policy (module docs)."""

TORCH_IMPORT_S = 1.7
"""Measured seconds a worker spends importing torch, added to the start-up when this process has torch (module docs)."""


class AutoRolloutRunner(ParallelRolloutRunner):
    """Rolls out in this process, and hands the remaining episodes to worker processes once that is faster.

    The rule: episodes run one after the other in the main process (like ``runner=sequential``)
    while the runner measures the seconds per episode. After each episode it estimates the
    remaining sequential time ``T`` and the start-up of workers ``S`` (:func:`worker_startup_seconds`:
    :data:`WORKER_STARTUP_S`, plus the time this process took to pickle the job (checking that it
    can go to workers) and to build the env and the policy, which every worker repeats, plus
    :data:`TORCH_IMPORT_S` when this process has imported torch); with ``p`` workers (at most ``n_processes``, the cores other processes leave free
    (:func:`usable_cores`) and the remaining episodes) the rest goes to the workers when
    ``S + T / p < T`` (:func:`pays_to_parallelize`). Small jobs thus never start a process, and
    with one free core nothing is ever parallel. A job that cannot go to workers (an
    unpicklable env or agent instance, a script without ``if __name__ == "__main__":``) stays
    in this process.

    Every episode keeps its own seeds, so the statistics and files equal those of
    ``runner=sequential`` and ``runner=parallel`` (which force one mode) for the same seeds.

    Args:
        n_processes: Most worker processes (fewer on machines with fewer free cores).
        n_episodes: Episodes per call.
        max_episode_steps: Env steps after which an episode is truncated; 0: no limit of the runner;
            None (default): the env's own limit (a TimeLimitWrapper in its wrappers, a gymnasium env's
            registered one), else :data:`~maze.rollout.rollout_job.FALLBACK_EPISODE_STEPS`.
        record_trajectory: Write one trajectory file per episode to ``trajectory_data/``.
        record_event_logs: Write the events of every episode to ``event_logs/``.
        deterministic: Act with the policy's most likely actions.
        start_method: Of the workers (see :class:`~maze.rollout.parallel_rollout_runner.ParallelRolloutRunner`).
        normalization_samples: See :class:`~maze.rollout.rollout_runner.RolloutRunner`.
    """

    def run_episodes(
        self,
        job: RolloutJob,
        env_seeds: Sequence[int],
        agent_seeds: Sequence[int],
        progress: RolloutProgress,
        first_episode: int = 0,
    ) -> EpisodeStatsBatch:
        """Runs the episodes here until the rule of the class docs hands the rest to workers.

        Args:
            job: The env, wrappers, agent and recording settings.
            env_seeds: Env seed of every episode of the rollout.
            agent_seeds: Agent seed of every episode of the rollout.
            progress: Told about the start-ups and every finished episode; its time measures the episodes.
            first_episode: Must be 0: this runner decides where the workers take over.

        Returns:
            The statistics of all episodes, in episode order.
        """
        if first_episode != 0:
            raise ValueError(f"AutoRolloutRunner starts at episode 0, got first_episode={first_episode}")
        n_episodes = len(env_seeds)
        progress.begin_startup()  # the pickling probe is start-up (workers unpickle the job too), not episode time
        payload = self._worker_payload(job)
        workers = 1

        def hand_over(done: int) -> bool:
            nonlocal workers
            if payload is None:
                return False
            workers = self.worker_count(n_episodes - done)
            remaining = progress.rollout_seconds() / done * (n_episodes - done)
            return pays_to_parallelize(remaining, workers, worker_startup_seconds(progress.startup_seconds))

        collected, done = roll_out_in_process(job, env_seeds, agent_seeds, progress, stop=hand_over)
        if done == n_episodes:
            return collected
        logger.info(
            f"rollout: the remaining {n_episodes - done} episodes go to {workers} worker processes "
            "(runner=sequential or runner=parallel forces one mode)"
        )
        assert payload is not None  # hand_over stops early only with one
        rest = self._run_in_workers(job, payload, env_seeds, agent_seeds, progress, first_episode=done)
        collected.events.update(rest.events)
        collected.episodes.extend(rest.episodes)
        return collected

    def worker_count(self, episodes: int) -> int:
        """Workers for ``episodes`` episodes: at most ``n_processes``, the free cores and ``episodes``."""
        return min(super().worker_count(episodes), usable_cores())

    def _worker_payload(self, job: RolloutJob) -> Optional[bytes]:
        """The job pickled for worker processes; None: it cannot go to them (unpicklable, or an unguarded script)."""
        if unguarded_main_script(self.start_method, sys.modules.get("__main__")) is not None:
            return None
        try:
            return cloudpickle.dumps(job)
        except Exception:  # noqa: BLE001 - any pickling failure keeps the job in this process
            return None


def pays_to_parallelize(remaining_seconds: float, workers: int, startup_seconds: float) -> bool:
    """Whether ``workers`` processes finish the remaining rollout sooner than this process alone.

    Args:
        remaining_seconds: Estimated time of the remaining episodes in this process.
        workers: Worker processes that would run them (one per core).
        startup_seconds: Estimated time until the workers run their first episode.

    Returns:
        True when ``workers > 1`` and ``startup_seconds + remaining_seconds / workers < remaining_seconds``.
    """
    return workers > 1 and startup_seconds + remaining_seconds / workers < remaining_seconds


def worker_startup_seconds(build_seconds: float) -> float:
    """Estimated seconds until workers run their first episode (see :class:`AutoRolloutRunner`).

    Args:
        build_seconds: The time this process took to build the env stack and the policy.
    """
    return WORKER_STARTUP_S + build_seconds + (TORCH_IMPORT_S if "torch" in sys.modules else 0.0)


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity) that other processes do not keep busy.

    Other processes' load is the 1-minute load average less this process's own share: on a
    2-core machine with a load of 2.6, one core is left. At least 1.
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    others = max(0.0, os.getloadavg()[0] - own_load_share()) if hasattr(os, "getloadavg") else 0.0
    return max(1, min(cores, round(cores - others)))


def own_load_share() -> float:
    """This process's estimated part of the 1-minute load average, between 0 and 1.

    The load average is an exponentially damped mean with a one-minute time constant: a
    process that kept a core busy for ``t`` seconds adds about ``1 - exp(-t / 60)`` to it
    (0.08 after 5 s, 0.99 after 5 minutes), so a rollout seconds after the start has hardly
    raised it yet. ``t`` is this process's CPU time.
    """
    return 1.0 - math.exp(-max(0.0, time.process_time()) / 60.0)
