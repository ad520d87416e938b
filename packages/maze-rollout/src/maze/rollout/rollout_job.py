"""RolloutJob: everything a process needs to build the env stack and the policy of a rollout.

A job is built once in the main process and, for parallel rollouts, shipped to every
worker with cloudpickle, so the env, wrappers and agent may be configs (``_target_``
mappings), classes, factory functions or instances.

The env stack a job builds, innermost first::

    env (config or instance)
    -> wrappers (the ``wrappers`` mapping, first key innermost)
    -> TimeLimitWrapper (max_episode_steps > 0; None: FALLBACK_EPISODE_STEPS for an env without a limit of its own)
    -> TrajectoryRecordingWrapper (when record_trajectory)
    -> LogStatsWrapper (logging prefix ``rollout_stats``)
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from maze.env.agent.policy import Policy
from maze.env.core.structured_env import StructuredEnv
from maze.env.errors import ConfigurationError
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.log_events_writer import LogEventsWriter, LogEventsWriterTSV
from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry
from maze.env.trajectory_recording.trajectory_files import TrajectoryWriterFile
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriterRegistry
from maze.env.utils.factory import CollectionOfConfigType, ConfigType, Factory, resolve_target, to_plain_config
from maze.env.wrappers.log_stats_wrapper import LogStatsWrapper
from maze.env.wrappers.normalization.normalization_utils import (
    estimate_observation_normalization_statistics,
    find_normalization_wrapper,
)
from maze.env.wrappers.normalization.statistics_io import NormalizationStatisticsType
from maze.env.wrappers.time_limit import TimeLimitWrapper, episode_step_limit
from maze.env.wrappers.trajectory_recording_wrapper import TrajectoryRecordingWrapper
from maze.env.wrappers.wrapper_factory import WrapperFactory
from maze.rollout.output_errors import GuardedEventsWriter, GuardedTrajectoryWriter

logger = logging.getLogger(__name__)

__all__ = ["ROLLOUT_STATS_PREFIX", "TRAJECTORY_DIR", "EVENT_LOG_DIR", "FALLBACK_EPISODE_STEPS", "RolloutJob"]

FALLBACK_EPISODE_STEPS = 200
"""Steps after which rollouts cut episodes of an env without a step limit of its own (by default), so they end."""

ROLLOUT_STATS_PREFIX = "rollout_stats"
"""Logging prefix of the rollout statistics table."""

TRAJECTORY_DIR = "trajectory_data"
"""Directory (in the output directory) of the trajectory files: one ``<episode id>.traj.npz`` per episode."""

EVENT_LOG_DIR = "event_logs"
"""Directory (in the output directory) of the event logs, one ``.tsv`` file per event type."""

_SPACES_ARGUMENTS = ("action_spaces_dict", "observation_spaces_dict")
"""Policy constructor arguments the job fills in from the env when the config leaves them out."""


@dataclass
class RolloutJob:
    """The env, wrappers, agent and recording settings of one rollout (picklable with cloudpickle).

    Attributes:
        env: Env config (``_target_`` mapping), class, factory function or instance.
        wrappers: ``{wrapper class or its dotted path / short name: keyword arguments}``; None: none.
        agent: Policy config, class, factory function or instance.
        max_episode_steps: Env steps after which an episode is truncated; 0: no limit; None: the env's own
            limit (see :func:`~maze.env.wrappers.time_limit.episode_step_limit`), else
            :data:`FALLBACK_EPISODE_STEPS`.
        deterministic: Passed to ``compute_action``.
        record_trajectory: Write one trajectory file per episode to ``<output_dir>/trajectory_data/``.
        record_event_logs: Write the events of every episode to ``<output_dir>/event_logs/``.
        trajectory_format: ``"data"`` (data-only files, the default) or ``"pickle"`` (explicit opt-in).
        output_dir: Absolute directory of the outputs (the run directory).
        input_dir: Training run to load observation normalization statistics from; None: none.
        normalization_statistics: Statistics for the wrappers' ObservationNormalizationWrapper
            (see :meth:`with_estimated_statistics`); None: none besides ``input_dir``'s.
    """

    env: ConfigType
    wrappers: Optional[CollectionOfConfigType]
    agent: ConfigType
    max_episode_steps: Optional[int]
    deterministic: bool
    record_trajectory: bool
    record_event_logs: bool
    output_dir: Path
    input_dir: Optional[Path] = None
    normalization_statistics: Optional[NormalizationStatisticsType] = None
    trajectory_format: str = "data"

    def build_env(self) -> Any:
        """Builds the env stack of the module docs, with normalization statistics from ``input_dir``.

        Raises:
            ConfigurationError: For bad env or wrapper configs, a normalization wrapper
                without statistics, or statistics missing in ``input_dir``.
        """
        env = Factory(StructuredEnv, config_key="env").instantiate(self.env)
        env = WrapperFactory.wrap_from_config(env, self.wrappers)
        self._set_normalization_statistics(env)
        limit = self.max_episode_steps
        if limit is None:
            limit = 0 if episode_step_limit(env) is not None else FALLBACK_EPISODE_STEPS
        if limit > 0:
            env = TimeLimitWrapper.wrap(env, max_episode_steps=limit)
        if self.record_trajectory:
            env = TrajectoryRecordingWrapper.wrap(env)
        return LogStatsWrapper.wrap(env, logging_prefix=ROLLOUT_STATS_PREFIX)

    def with_estimated_statistics(self, n_samples: int, seed: int) -> RolloutJob:
        """The job with estimated statistics for a normalization wrapper that has none and no ``input_dir``.

        A random baseline under the wrappers of a training run needs no training run: the
        statistics are estimated once, in this process, from ``n_samples`` observations of
        the wrapper's ``sampling_policy`` (as training estimates them), so every worker
        normalizes alike; they are written to ``<output_dir>/<statistics_dump>`` and one line
        says so. A job with ``input_dir``, without such a wrapper or with complete statistics
        is returned unchanged.

        Args:
            n_samples: Observations to estimate from.
            seed: Seeds the sampling.
        """
        if self.input_dir is not None or not self.wrappers or self.normalization_statistics is not None:
            return self
        env = WrapperFactory.wrap_from_config(
            Factory(StructuredEnv, config_key="env").instantiate(self.env), self.wrappers
        )
        try:
            try:
                wrapper = find_normalization_wrapper(env)
            except ConfigurationError:
                return self
            missing = wrapper.missing_statistics_keys()
            if not missing:
                return self
            wrapper.set_normalization_statistics(
                estimate_observation_normalization_statistics(wrapper, n_samples, seed=seed)
            )
            path = wrapper.dump_statistics(self.output_dir / wrapper.statistics_dump)
            logger.info(
                f"rollout: the ObservationNormalizationWrapper has no statistics for {missing} and no input_dir: "
                f"estimated them from {n_samples} observations of its sampling policy (as training does), written to "
                f"{path.name}; pass input_dir=<training run directory> to use that run's statistics"
            )
            return dataclasses.replace(self, normalization_statistics=wrapper.get_statistics())
        finally:
            if not isinstance(self.env, StructuredEnv):  # built here from a config: close it
                env.close()

    def build_policy(self, env: Any) -> Policy:
        """Builds the agent for ``env``.

        Configs (and classes, factories) whose target takes ``action_spaces_dict`` or
        ``observation_spaces_dict`` and that leave them out receive the env's.

        Raises:
            ConfigurationError: For a bad agent config or a result that is no Policy.
        """
        config = to_plain_config(self.agent)
        target = config.get("_target_") if isinstance(config, Mapping) else config
        if isinstance(target, str):
            target = resolve_target(target)
        extra: dict[str, Any] = {}
        if callable(target) and not isinstance(target, Policy):
            accepted = _parameter_names(target)
            given = config if isinstance(config, Mapping) else {}
            extra = {name: getattr(env, name) for name in _SPACES_ARGUMENTS if name in accepted and name not in given}
        return Factory(Policy).instantiate(config, **extra)

    @contextmanager
    def recording(self, lock: Optional[Any] = None) -> Iterator[None]:
        """Registers the trajectory and event log writers of this job for a ``with`` block.

        A writer's :class:`OSError` (e.g. a full disk) is raised as a
        :class:`~maze.rollout.output_errors.RolloutOutputError` naming the file and the cause.

        Args:
            lock: A (multiprocessing) lock held while an episode's event log is written, so
                that processes sharing the event log files never write at the same time.
        """
        with ExitStack() as stack:
            if self.record_trajectory:
                directory = self.output_dir / TRAJECTORY_DIR
                trajectory_writer = GuardedTrajectoryWriter(
                    TrajectoryWriterFile(directory, format=self.trajectory_format), directory
                )
                TrajectoryWriterRegistry.register_writer(trajectory_writer)
                stack.callback(TrajectoryWriterRegistry.unregister_writer, trajectory_writer)
            if self.record_event_logs:
                directory = self.output_dir / EVENT_LOG_DIR
                event_writer: LogEventsWriter = GuardedEventsWriter(LogEventsWriterTSV(directory), directory)
                if lock is not None:
                    event_writer = _LockedEventsWriter(event_writer, lock)
                LogEventsWriterRegistry.register_writer(event_writer)
                stack.callback(LogEventsWriterRegistry.unregister_writer, event_writer)
            yield

    def _set_normalization_statistics(self, env: Any) -> None:
        """Gives the stack's normalization wrapper (if any) :attr:`normalization_statistics`, else ``input_dir``'s."""
        try:
            wrapper = find_normalization_wrapper(env)
        except ConfigurationError:
            return
        if self.normalization_statistics is not None:
            wrapper.set_normalization_statistics(self.normalization_statistics)
        elif self.input_dir is not None:
            path = self.input_dir / wrapper.statistics_dump
            if not path.is_file():
                raise ConfigurationError(
                    f"the wrappers contain an ObservationNormalizationWrapper, but input_dir {str(self.input_dir)!r} "
                    f"has no {wrapper.statistics_dump}; pass the run directory of a training run with the same "
                    "wrappers, or roll out without the normalization wrapper"
                )
            wrapper.set_normalization_statistics(wrapper.load_statistics(path))
        elif wrapper.missing_statistics_keys():
            raise ConfigurationError(
                f"the wrappers contain an ObservationNormalizationWrapper without statistics for "
                f"{wrapper.missing_statistics_keys()}; pass input_dir=<training run directory> to load them from "
                "its statistics file, or give the wrapper default_statistics"
            )


class _LockedEventsWriter(LogEventsWriter):
    """Writes through another event log writer while holding a lock shared by several processes."""

    def __init__(self, writer: LogEventsWriter, lock: Any) -> None:
        self.writer = writer
        self.lock = lock

    def write(self, episode_event_log: EpisodeEventLog) -> None:
        """Writes the episode's events with the lock held."""
        with self.lock:
            self.writer.write(episode_event_log)


def _parameter_names(target: Any) -> set[str]:
    """Keyword parameter names of a class or function (empty when it has no inspectable signature)."""
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return set()
    return {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
