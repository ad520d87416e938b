"""LogStatsWrapper: collects rewards, events and KPIs and aggregates them into statistics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, Optional

from maze.env.core.events import EventColumns, EventRecord
from maze.env.core.maze_env import MazeEnv
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.log_events_writer import LogEventsWriter
from maze.env.log_events.log_events_writer_registry import LogEventsWriterRegistry
from maze.env.log_events.step_event_log import StepEventLog
from maze.env.log_stats.aggregator import EpisodeStatsBatch, LogStatsAggregator, step_stats
from maze.env.log_stats.base_events import ActorEvents, BaseEnvEvents
from maze.env.log_stats.event_decorators import LogStatsLevel
from maze.env.log_stats.global_state import get_log_step, log_stats
from maze.env.log_stats.log_stats import LogStats, LogStatsKey
from maze.env.log_stats.log_stats_env import LogStatsEnv
from maze.env.log_stats.writers import LogStatsWriter
from maze.env.wrappers._shared import env_time_source
from maze.env.wrappers.wrapper import Wrapper

__all__ = ["LogStatsWrapper"]

_NO_EVENTS: tuple = ()
_REWARD_KEY = LogStatsKey("BaseEnvEvents", "reward")


class LogStatsWrapper(Wrapper[Any], LogStatsEnv):
    """Turns the rewards, events and KPIs of an env into step, episode and epoch statistics.

    Per step the wrapper only keeps the reward, the env time and (when the step fired any)
    a copy of the step's events (``get_step_events()`` of the wrapped env). Reward statistics
    count env steps: the rewards of the sub-steps of one env step (``step()`` calls with the
    same env time, see ``TimeEnvMixin``) are summed into one step. When an episode
    ends — ``terminated`` or ``truncated``, or ``reset()`` in the middle of an episode — it

    1. computes the step and episode statistics of the env's events and of
       ``BaseEnvEvents.reward`` (with :class:`~maze.env.log_stats.aggregator.LogStatsAggregator`),
    2. builds the episode's :class:`~maze.env.log_events.episode_event_log.EpisodeEventLog`
       (one StepEventLog per env step with the env's events plus a ``BaseEnvEvents.reward``
       event per ``step()`` call) when the env has a KPI calculator or an event log writer
       is registered (or given as ``event_log_writers``),
    3. computes the KPIs (``env.get_kpi_calculator()``), logged as ``BaseEnvEvents kpi``, and
    4. hands the event log to ``LogEventsWriterRegistry.record_event_logs`` (or to the
       wrapper's own ``event_log_writers``).

    :meth:`write_epoch_stats` writes the epoch statistics under ``logging_prefix`` through
    the writers registered with :func:`~maze.env.log_stats.global_state.register_log_stats_writer`
    (or through the wrapper's own ``stats_writers``), at the current log step.

    Envs with dynamic agents (a ``-1`` in ``agent_counts_dict``) also get the return of
    every actor, per sub-step key (:class:`~maze.env.log_stats.base_events.ActorEvents`):
    the rewards from an actor's first action until it is done or the episode ends.

    Put it outermost, above :class:`~maze.env.wrappers.monitoring_wrapper.MazeEnvMonitoringWrapper`
    and every wrapper whose rewards should be logged.

    Args:
        env: The env to observe (a MazeEnv or a wrapper stack around one).
        logging_prefix: Prefix of the written statistics (``train``, ``eval``, ...; None: none).
        stats_writers: Statistics writer instances of this wrapper alone (e.g. ``[LogStatsWriterFile("a")]``);
            None: the writers registered for the whole process.
        event_log_writers: Event log writer instances of this wrapper alone; None: the process-wide
            ``LogEventsWriterRegistry``.

    Raises:
        TypeError: For a ``logging_prefix`` that is no string or a writer of the wrong kind.
    """

    def __init__(
        self,
        env: Any,
        logging_prefix: Optional[str] = None,
        stats_writers: Optional[Sequence[LogStatsWriter]] = None,
        event_log_writers: Optional[Sequence[LogEventsWriter]] = None,
    ) -> None:
        super().__init__(env)
        if logging_prefix is not None and not isinstance(logging_prefix, str):
            raise TypeError(f"LogStatsWrapper: logging_prefix must be a str or None, got {logging_prefix!r}")
        if stats_writers is not None and not all(isinstance(writer, LogStatsWriter) for writer in stats_writers):
            raise TypeError(f"LogStatsWrapper: stats_writers must be LogStatsWriters, got {list(stats_writers)!r}")
        self.logging_prefix = logging_prefix
        self._stats_writers = None if stats_writers is None else list(stats_writers)
        self._event_log_writers = (
            LogEventsWriterRegistry
            if event_log_writers is None
            else LogEventsWriterRegistry.with_writers(event_log_writers)
        )
        self._aggregator = LogStatsAggregator()
        self._step_events_source: Callable[[], Any] = _past_maze_env_delegation(
            getattr(env, "get_step_events", lambda: _NO_EVENTS)
        )
        self._env_time: Callable[[], int] = _past_maze_env_delegation(
            env_time_source(env) or (lambda: len(self._rewards))
        )
        # The running episode, per step() call: reward, env time and the end of its events in
        # _events (the events of all steps in one set of columns: no object per event for the
        # garbage collector to track).
        self._rewards: list = []
        self._env_times: list[int] = []
        self._step_ends: list[int] = []
        self._events = EventColumns()
        self._last_step: tuple[Any, Sequence[EventRecord]] = (None, _NO_EVENTS)
        # Envs with dynamic agents: the running return of every live actor and the finished ones.
        counts = getattr(env, "agent_counts_dict", {})
        self._actor_returns: Optional[dict[Any, float]] = {} if any(n < 0 for n in counts.values()) else None
        self._finished_actors: list[EventRecord] = []

    # --- gymnasium API -------------------------------------------------------------------

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Steps the env and records the step's reward and events."""
        env_time = self._env_time()
        actor = None if self._actor_returns is None else self.env.actor_id()
        result = self.env.step(action)
        events = self._events
        events.extend(self._step_events_source())
        self._rewards.append(result[1])
        self._env_times.append(env_time)
        self._step_ends.append(len(events.methods))
        if actor is not None:
            self._add_actor_reward(actor, result[1])
        if result[2] or result[3]:
            self._end_episode()
        return result

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Ends the statistics of an unfinished episode, then resets the env."""
        self.finish_episode_stats()
        return self.env.reset(seed=seed, options=options)

    # --- LogStatsEnv ---------------------------------------------------------------------

    def get_stats(self, level: LogStatsLevel) -> LogStats:
        """The statistics of the last step, the last finished episode or the last written epoch."""
        if level != LogStatsLevel.STEP:
            return self._aggregator.get_stats(level)
        if self._rewards:
            ends = self._step_ends
            reward, events = self._rewards[-1], self._events[ends[-2] if len(ends) > 1 else 0 : ends[-1]]
        else:
            reward, events = self._last_step
        if reward is None:
            return {}
        return {_REWARD_KEY: reward, **step_stats(events)}

    def write_epoch_stats(self) -> None:
        """Reduces the epoch statistics and writes them under ``logging_prefix`` at the current log step."""
        stats = self._aggregator.reduce()
        if self._stats_writers is None:
            log_stats(stats, self.logging_prefix)
            return
        step = get_log_step()
        for writer in self._stats_writers:
            writer.write(self.logging_prefix, step, stats)

    def clear_epoch_stats(self) -> None:
        """Drops the finished episodes of the current epoch."""
        self._aggregator.clear_epoch()

    def finish_episode_stats(self) -> None:
        """Ends the running episode's statistics now (nothing happens before its first step)."""
        if self._rewards:
            self._end_episode()

    def take_episode_stats(self) -> EpisodeStatsBatch:
        """Moves the statistics of the epoch's finished episodes out (see ``log_stats.vector_stats``)."""
        return self._aggregator.take_episode_stats()

    # --- helpers -------------------------------------------------------------------------

    def _add_actor_reward(self, actor: Any, reward: float) -> None:
        """Credits ``reward`` to every live actor (``actor`` just acted) and ends ``actor`` if it is done."""
        returns = self._actor_returns
        returns.setdefault(actor, 0.0)
        for key in returns:
            returns[key] += float(reward)
        if self.env.is_actor_done():
            self._finish_actor(actor)

    def _finish_actor(self, actor: Any) -> None:
        value = self._actor_returns.pop(actor)
        self._finished_actors.append(
            EventRecord(ActorEvents, ActorEvents.actor_return, {"step_key": actor[0], "value": value})
        )

    def _end_episode(self) -> None:
        rewards, env_times, ends, events = self._rewards, self._env_times, self._step_ends, self._events
        self._rewards, self._env_times, self._step_ends, self._events = [], [], [], EventColumns()
        self._last_step = (rewards[-1], events[ends[-2] if len(ends) > 1 else 0 :])
        aggregator = self._aggregator
        if events:
            aggregator.add_steps(events, ends)
        aggregator.add_step_stats(BaseEnvEvents, BaseEnvEvents.reward, _rewards_per_env_step(rewards, env_times))
        if self._actor_returns is not None:
            for actor in list(self._actor_returns):
                self._finish_actor(actor)
            if self._finished_actors:  # one step per actor: one return per step statistic
                aggregator.add_steps(self._finished_actors, range(1, len(self._finished_actors) + 1))
            self._finished_actors = []
        kpi_calculator = getattr(self.env, "get_kpi_calculator", lambda: None)()
        if kpi_calculator is not None or self._event_log_writers.writers:
            kpi_events = self._record_event_log(kpi_calculator, rewards, env_times, events, ends)
            if kpi_events:
                aggregator.add_step(kpi_events)
        aggregator.end_episode()

    def _record_event_log(
        self, kpi_calculator: Any, rewards: list, env_times: list[int], events: EventColumns, ends: list[int]
    ) -> list[EventRecord]:
        """Builds the episode event log, hands it to the event log writers and returns the KPI events."""
        episode_id = self.env.get_episode_id() if hasattr(self.env, "get_episode_id") else ""
        episode_event_log = EpisodeEventLog.deferred(
            episode_id,
            build=lambda: _step_event_logs(rewards, env_times, events, ends),
            env_times=_distinct_in_order(env_times),
            query=events.query,
            built_only=(BaseEnvEvents.reward,),
        )
        kpi_events = [] if kpi_calculator is None else self._kpi_events(kpi_calculator, episode_event_log)
        self._event_log_writers.record(episode_event_log)
        return kpi_events

    def _kpi_events(self, kpi_calculator: Any, episode_event_log: EpisodeEventLog) -> list[EventRecord]:
        """The episode's KPIs as ``BaseEnvEvents.kpi`` events."""
        last_maze_state = self.env.get_maze_state() if hasattr(self.env, "get_maze_state") else None
        kpis = kpi_calculator.calculate_kpis(episode_event_log, last_maze_state)
        return [
            EventRecord(BaseEnvEvents, BaseEnvEvents.kpi, {"name": name, "value": value})
            for name, value in kpis.items()
        ]


def _step_event_logs(rewards: list, env_times: list[int], events: EventColumns, ends: list[int]) -> list[StepEventLog]:
    """One StepEventLog per env step (sub-steps with the same env time share it), with the reward events.

    Args:
        rewards: The reward of each ``step()`` call.
        env_times: The env time of each ``step()`` call.
        events: The events of all ``step()`` calls, in order.
        ends: Per ``step()`` call, the end of its events in ``events``.
    """
    step_events = [events[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]
    for call_events, reward in zip(step_events, rewards, strict=True):
        call_events.append(EventRecord(BaseEnvEvents, BaseEnvEvents.reward, {"value": reward}))
    if _one_env_step_per_call(env_times):
        return list(map(StepEventLog, env_times, step_events))
    step_event_logs: list[StepEventLog] = []
    for env_time, call_events in zip(env_times, step_events, strict=True):
        if step_event_logs and step_event_logs[-1].env_time == env_time:
            step_event_logs[-1].events.extend(call_events)
        else:
            step_event_logs.append(StepEventLog(env_time, call_events))
    return step_event_logs


def _distinct_in_order(env_times: list[int]) -> list[int]:
    """The env times of the env steps: consecutive ``step()`` calls with the same env time count once."""
    if _one_env_step_per_call(env_times):
        return env_times
    return [time for index, time in enumerate(env_times) if index == 0 or env_times[index - 1] != time]


def _past_maze_env_delegation(method: Callable[[], Any]) -> Callable[[], Any]:
    """The core env's method when ``method`` is a MazeEnv's own plain delegation to it (one call less per step).

    ``MazeEnv.get_step_events`` and ``MazeEnv.get_env_time`` only call the same method of
    their core env; a MazeEnv subclass that overrides them keeps its own.
    """
    owner = getattr(method, "__self__", None)
    name = getattr(method, "__name__", "")
    if (
        isinstance(owner, MazeEnv)
        and name in _MAZE_ENV_DELEGATIONS
        and getattr(type(owner), name) is getattr(MazeEnv, name)
    ):
        return getattr(owner.core_env, name)
    return method


_MAZE_ENV_DELEGATIONS = ("get_step_events", "get_env_time")


def _one_env_step_per_call(env_times: list[int]) -> bool:
    """Whether every ``step()`` call was an env step of its own (flat envs): no sub-steps share an env time."""
    return env_times[-1] - env_times[0] == len(env_times) - 1


def _rewards_per_env_step(rewards: list, env_times: list[int]) -> list:
    """Sums the rewards of the sub-steps of each env step (consecutive steps with the same env time)."""
    if _one_env_step_per_call(env_times):
        return rewards  # every step() was an env step of its own (flat envs)
    summed = [rewards[0]]
    for previous_time, time, reward in zip(env_times[:-1], env_times[1:], rewards[1:], strict=True):
        if time == previous_time:
            summed[-1] = summed[-1] + reward
        else:
            summed.append(reward)
    return summed
