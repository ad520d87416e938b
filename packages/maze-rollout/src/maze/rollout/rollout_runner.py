"""RolloutRunner: the base of the rollout runners of ``maze-run`` (``runner=parallel``, ``runner=sequential``)."""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.log_stats.aggregator import EpisodeStatsBatch, LogStatsAggregator
from maze.env.log_stats.base_events import BaseEnvEvents
from maze.env.log_stats.global_state import (
    GlobalLogState,
    get_stats_logger,
    increment_log_step,
    register_log_stats_writer,
    unregister_log_stats_writer,
)
from maze.env.log_stats.log_stats import LogStats
from maze.env.log_stats.log_stats_env import stats_value
from maze.env.log_stats.writers import LogStatsWriterConsole
from maze.env.utils.factory import CollectionOfConfigType, ConfigType, to_plain_config
from maze.env.utils.seeding import MazeSeeding
from maze.rollout._validation import checked_bool, checked_int
from maze.rollout.progress import RolloutProgress
from maze.rollout.rollout_job import EVENT_LOG_DIR, ROLLOUT_STATS_PREFIX, TRAJECTORY_DIR, RolloutJob
from maze.rollout.runner import Runner, outputs_note

logger = logging.getLogger(__name__)

__all__ = ["RolloutRunner"]


class RolloutRunner(Runner):
    """Runs an agent in an env for a number of episodes and writes the ``rollout_stats`` table.

    :meth:`run_with` takes the env, the wrappers and the agent as configs or instances. It
    can be called any number of times in one process: each call registers its writers
    (statistics console, trajectory files, event logs) and removes them when it ends, and
    each call's table holds only its own episodes. Outputs go to the current working
    directory (``maze-run``: the run directory): ``trajectory_data/<episode id>.traj.npz``
    (``record_trajectory``; ``.pkl`` with ``trajectory_format="pickle"``) and ``event_logs/<Topic>.<event>.tsv`` (``record_event_logs``).
    Each call ends with one line: episodes, steps, time and rates (start-up excluded) and
    ``Outputs: <directory> (...)``.

    Every episode gets its own env and agent seed, drawn up front from :attr:`seeding`, so
    the episodes (and their statistics) do not depend on how they are spread over processes.

    Args:
        n_episodes: Episodes per call.
        max_episode_steps: Env steps after which an episode is truncated; 0: no limit of the runner;
            None (default): the env's own limit (a TimeLimitWrapper in its wrappers, a gymnasium env's
            registered one), else :data:`~maze.rollout.rollout_job.FALLBACK_EPISODE_STEPS`.
        record_trajectory: Write one trajectory file per episode.
        record_event_logs: Write the events of every episode.
        deterministic: Act with the policy's most likely actions (policies without one ignore it).
        normalization_samples: Observations to estimate the statistics of an ObservationNormalizationWrapper
            from when neither its config nor ``input_dir`` gives them (see
            :meth:`~maze.rollout.rollout_job.RolloutJob.with_estimated_statistics`).
        trajectory_format: ``"data"`` (default): data-only trajectory files (``<episode id>.traj.npz``);
            ``"pickle"``: cloudpickle files, an explicit opt-in for env states with no data-only form.

    Attributes:
        seeding: Draws the episodes' seeds; set by :meth:`setup` from the ``seeding`` config, or
            assign one before :meth:`run_with` (None: random base seeds on the first call).
        input_dir: Training run directory to load normalization statistics from (None: none).
        last_stats: The statistics table of the last call.
    """

    def __init__(
        self,
        n_episodes: int = 50,
        max_episode_steps: Optional[int] = None,
        record_trajectory: bool = True,
        record_event_logs: bool = True,
        deterministic: bool = True,
        normalization_samples: int = 1000,
        trajectory_format: str = "data",
    ) -> None:
        if trajectory_format not in ("data", "pickle"):
            raise ConfigurationError(
                f"runner.trajectory_format must be 'data' (data-only files, the default) or 'pickle', got "
                f"{trajectory_format!r}"
            )
        self.trajectory_format = trajectory_format
        self.n_episodes = checked_int("n_episodes", n_episodes, minimum=1)
        self.max_episode_steps = (
            None if max_episode_steps is None else checked_int("max_episode_steps", max_episode_steps, minimum=0)
        )
        self.record_trajectory = checked_bool("record_trajectory", record_trajectory)
        self.record_event_logs = checked_bool("record_event_logs", record_event_logs)
        self.deterministic = checked_bool("deterministic", deterministic)
        self.normalization_samples = checked_int("normalization_samples", normalization_samples, minimum=1)
        self.seeding: Optional[MazeSeeding] = None
        self.input_dir: Optional[Path] = None
        self.last_stats: LogStats = {}
        self._job_config: Optional[tuple[Any, Any, Any]] = None

    def setup(self, cfg: Any) -> None:
        """Reads ``env``, ``wrappers``, ``policy``, ``seeding`` and ``input_dir`` from the job config.

        Raises:
            ConfigurationError: For a missing ``env`` or ``policy``, a bad ``seeding`` or an ``input_dir``
                that is no directory.
        """
        config = to_plain_config(cfg)
        for key in ("env", "policy"):
            if not config.get(key):
                raise ConfigurationError(f"the rollout config has no `{key}`; pick one, e.g. {key}=...")
        self.seeding = MazeSeeding.from_config(config.get("seeding"))
        input_dir = config.get("input_dir")
        self.input_dir = None
        if input_dir:
            self.input_dir = Path(str(input_dir)).expanduser().resolve()
            if not self.input_dir.is_dir():
                raise ConfigurationError(
                    f"input_dir {str(self.input_dir)!r} does not exist; pass the run directory of a training run "
                    "(outputs/<experiment>/<timestamp>)"
                )
        self._job_config = (config["env"], config.get("wrappers"), config["policy"])

    def run(self) -> float:
        """Rolls out the env, wrappers and policy of :meth:`setup`; returns the mean episode return."""
        if self._job_config is None:
            raise RuntimeError(
                f"{type(self).__name__}.run() needs setup(cfg) first; or call run_with(env, wrappers, agent)"
            )
        return self.run_with(*self._job_config)

    def run_with(self, env: ConfigType, wrappers: Optional[CollectionOfConfigType], agent: ConfigType) -> float:
        """Runs :attr:`n_episodes` episodes and writes their statistics under ``rollout_stats``.

        Args:
            env: Env config (``_target_`` mapping), class, factory function or instance.
            wrappers: ``{wrapper class, dotted path or short name: keyword arguments}``, or None.
            agent: Policy config, class, factory function or instance. Configs and classes whose
                constructor takes ``action_spaces_dict`` / ``observation_spaces_dict`` get the env's.

        Returns:
            The mean episode return (the objective of hyper-parameter sweeps).
        """
        job = RolloutJob(
            env=self.prepare_env_config(env),
            wrappers=wrappers,
            agent=agent,
            max_episode_steps=self.max_episode_steps,
            deterministic=self.deterministic,
            record_trajectory=self.record_trajectory,
            record_event_logs=self.record_event_logs,
            trajectory_format=self.trajectory_format,
            output_dir=Path.cwd().resolve(),
            input_dir=self.input_dir,
        )
        if self.seeding is None:
            self.seeding = MazeSeeding(None, None)
        env_seeds = self.seeding.get_explicit_env_seeds(self.n_episodes)
        agent_seeds = self.seeding.get_explicit_agent_seeds(self.n_episodes)
        job = job.with_estimated_statistics(self.normalization_samples, self.seeding.generate_env_instance_seed())
        progress = RolloutProgress(self.n_episodes)
        episodes = self.run_episodes(job, env_seeds, agent_seeds, progress)
        mean_return = self._write_stats(episodes)
        logger.info(f"{progress.summary()}. {outputs_note(job.output_dir, _written(job))}")
        return mean_return

    def prepare_env_config(self, env: ConfigType) -> ConfigType:
        """Adapts the env (config) before the rollout; the default returns it unchanged."""
        return env

    @abstractmethod
    def run_episodes(
        self, job: RolloutJob, env_seeds: Sequence[int], agent_seeds: Sequence[int], progress: RolloutProgress
    ) -> EpisodeStatsBatch:
        """Runs episode ``i`` with ``env_seeds[i]`` and ``agent_seeds[i]`` for every ``i``.

        Returns:
            The statistics of all episodes, in episode order.
        """

    def _write_stats(self, episodes: EpisodeStatsBatch) -> float:
        """Reduces the episodes to the table, writes it at the next log step and returns the mean return."""
        aggregator = LogStatsAggregator()
        aggregator.add_episode_stats(episodes)
        self.last_stats = aggregator.reduce()
        with _console_writer():
            increment_log_step()
            get_stats_logger(ROLLOUT_STATS_PREFIX).log_stats(self.last_stats)
        return float(stats_value(self.last_stats, BaseEnvEvents.reward, "mean"))


def _written(job: RolloutJob) -> list[str]:
    """The outputs a finished rollout wrote into its output directory."""
    written = [f"{TRAJECTORY_DIR}/"] if job.record_trajectory else []
    return written + ([f"{EVENT_LOG_DIR}/"] if job.record_event_logs else [])


@contextmanager
def _console_writer() -> Iterator[None]:
    """Registers a console writer for the block unless one is registered already."""
    if any(isinstance(writer, LogStatsWriterConsole) for writer in GlobalLogState.writers):
        yield
        return
    writer = LogStatsWriterConsole()
    register_log_stats_writer(writer)
    try:
        yield
    finally:
        unregister_log_stats_writer(writer)
