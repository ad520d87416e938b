"""Records every episode of an env as a StateTrajectoryRecord and hands it to the writers.

``TrajectoryWriterFile`` stores each record as a data-only file (see
:mod:`maze.env.trajectory_recording.trajectory_files`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Callable, Optional

from maze.env.core.mixins import EventEnvMixin, RecordableEnvMixin, SerializableEnvMixin
from maze.env.core.rendering import Renderer
from maze.env.errors import ConfigurationError
from maze.env.log_events.step_event_log import StepEventLog
from maze.env.trajectory_recording.records import StateRecord, StateTrajectoryRecord
from maze.env.trajectory_recording.trajectory_writer import TrajectoryWriter, TrajectoryWriterRegistry
from maze.env.wrappers._shared import env_time_source
from maze.env.wrappers.wrapper import EnvType, Wrapper

__all__ = ["TrajectoryRecordingWrapper"]


class TrajectoryRecordingWrapper(Wrapper[EnvType]):
    """Records one :class:`StateTrajectoryRecord` per episode of a recordable env.

    Every ``step()`` call (every sub-step, for structured envs) adds a
    :class:`StateRecord` with the MazeState the action was taken in, the executed
    MazeAction, a copy of the step's events (with the env time before the step), the
    reward, both flags, the info dict and the env's serializable components. States,
    actions and components are deep-copied, so envs that update their state in place are
    recorded correctly. The record's id is the env's episode id and it carries the env's
    renderer (None for envs without one, and for gymnasium envs, whose renderer cannot
    replay recorded states).

    An episode is handed to
    :meth:`TrajectoryWriterRegistry.record_trajectory_data
    <maze.env.trajectory_recording.trajectory_writer.TrajectoryWriterRegistry.record_trajectory_data>`
    (or to the wrapper's own ``writers``) when it terminates or is truncated, when the env is
    reset before it ended (e.g. by an outer time limit), on :meth:`flush` and on :meth:`close`.
    Episodes without steps are not handed on. With no writer registered, nothing is stored. Stepping on after an
    episode ended without a reset (undefined in gymnasium) records into a new record with
    the same episode id, which supersedes the first one.

    Args:
        env: A recordable env (``RecordableEnvMixin``, e.g. any MazeEnv) or a stack
            around one.
        writers: Writer instances of this wrapper alone (e.g. ``[TrajectoryWriterFile("a")]``);
            None: the process-wide ``TrajectoryWriterRegistry``.

    Raises:
        TypeError: One of ``writers`` is no :class:`TrajectoryWriter`.
    """

    def __init__(self, env: EnvType, writers: Optional[Sequence[TrajectoryWriter]] = None) -> None:
        if not isinstance(env, RecordableEnvMixin):
            raise ConfigurationError(
                f"TrajectoryRecordingWrapper needs an env that provides get_maze_state/get_maze_action/"
                f"get_episode_id (RecordableEnvMixin, e.g. a MazeEnv or GymMazeEnv); got {type(env).__name__}. "
                "Wrap a plain gymnasium env with GymMazeEnv first."
            )
        super().__init__(env)
        self._writers = TrajectoryWriterRegistry if writers is None else TrajectoryWriterRegistry.with_writers(writers)
        self._env_time: Optional[Callable[[], int]] = env_time_source(env)
        self._records_events = isinstance(env, EventEnvMixin)
        self._records_components = isinstance(env, SerializableEnvMixin)
        self._episode: Optional[StateTrajectoryRecord] = None
        self._state_before: Any = None

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[Any, dict]:
        """Hands on the unfinished episode (if any), resets the env and starts a new record."""
        self._end_episode()
        observation, info = self.env.reset(seed=seed, options=options)
        self._start_episode()
        return observation, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Steps the env and records the step; hands on the episode when it ended."""
        if self._episode is None:
            self._start_episode()
        episode = self._episode
        env_time = self._env_time() if self._env_time is not None else len(episode)
        observation, reward, terminated, truncated, info = self.env.step(action)
        env = self.env
        events = list(env.get_step_events()) if self._records_events else []
        components = copy.deepcopy(env.get_serializable_components()) if self._records_components else None
        state_after = copy.deepcopy(env.get_maze_state())
        episode.append(
            StateRecord(
                maze_state=self._state_before,
                maze_action=copy.deepcopy(env.get_maze_action()),
                step_event_log=StepEventLog(env_time, events),
                reward=reward,
                terminated=bool(terminated),
                truncated=bool(truncated),
                info=dict(info),
                serializable_components=components,
            )
        )
        self._state_before = state_after
        if terminated or truncated:
            self._end_episode()
        return observation, reward, terminated, truncated, info

    def flush(self) -> None:
        """Hands the episode recorded so far to the writers; recording goes on.

        A later hand-on of the same episode (its end, or another flush) supersedes this
        one: it has the same id, so ``TrajectoryWriterFile`` replaces the file.
        """
        episode = self._episode
        if episode is not None and len(episode) > 0:
            self._writers.record(replace(episode, step_records=list(episode.step_records)))

    def close(self) -> None:
        """Hands on the unfinished episode, then closes the env."""
        self._end_episode()
        self.env.close()

    def _end_episode(self) -> None:
        self.flush()
        self._episode = None

    def _start_episode(self) -> None:
        self._episode = StateTrajectoryRecord(id=self.env.get_episode_id(), renderer=self._replay_renderer())
        self._state_before = copy.deepcopy(self.env.get_maze_state())

    def _replay_renderer(self) -> Optional[Renderer]:
        """The env's renderer, or None when it has none that can draw recorded states."""
        try:
            renderer = self.env.get_renderer()
        except NotImplementedError:
            return None
        return renderer if renderer.replayable else None
