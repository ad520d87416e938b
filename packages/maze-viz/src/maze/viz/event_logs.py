"""An episode's events as rows, filtered by topic, event and step, and the episode's KPIs.

The event-log viewer and the statistics renderers read episodes through
:func:`episode_event_log`, from a recorded episode (a trajectory file or a
``StateTrajectoryRecord``) or from an ``EpisodeEventLog`` as the statistics wrapper
hands it to the event-log writers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.kpi_calculator import KpiCalculator
from maze.env.log_stats.base_events import BaseEnvEvents
from maze.viz.trajectories import TrajectoryInput, load_state_trajectory

__all__ = ["EventRow", "EpisodeInput", "episode_event_log", "event_rows", "episode_kpis"]

EpisodeInput = Union[EpisodeEventLog, TrajectoryInput]
"""An episode event log, a recorded episode, or the path of a trajectory file."""


@dataclass(frozen=True)
class EventRow:
    """One fired event of an episode.

    Attributes:
        step: Index of the step (0-based) in the episode.
        topic: Name of the event topic class, e.g. ``CuttingEvents``.
        event: Name of the event, e.g. ``valid_cut``.
        attributes: The event's attributes.
    """

    step: int
    topic: str
    event: str
    attributes: dict[str, Any]


def episode_event_log(episode: EpisodeInput) -> EpisodeEventLog:
    """The event log of ``episode`` (an event log is returned as is; a recorded episode gets one built)."""
    if isinstance(episode, EpisodeEventLog):
        return episode
    record = load_state_trajectory(episode)
    return EpisodeEventLog(record.id, [step.step_event_log for step in record.step_records if step.step_event_log])


def event_rows(
    log: EpisodeEventLog, topic: Optional[str] = None, event: Optional[str] = None, step: Optional[int] = None
) -> list[EventRow]:
    """The events of ``log`` in firing order, optionally only one topic, one event name and one step."""
    rows = []
    for index, step_event_log in enumerate(log.step_event_logs):
        if step is not None and index != step:
            continue
        for record in step_event_log.events:
            row = EventRow(index, record.interface_class.__name__, record.interface_method.__name__, record.attributes)
            if (topic is None or row.topic == topic) and (event is None or row.event == event):
                rows.append(row)
    return rows


def episode_kpis(
    log: EpisodeEventLog, kpi_calculator: Optional[KpiCalculator] = None, last_maze_state: Any = None
) -> dict[str, float]:
    """The KPIs of an episode: computed by ``kpi_calculator`` when given, else the logged ``BaseEnvEvents.kpi`` events.

    Args:
        log: The episode's event log.
        kpi_calculator: The env's KPI calculator (``core_env.get_kpi_calculator()``).
        last_maze_state: Passed to the calculator (a recorded episode keeps the MazeState
            before each step: pass the last step's).
    """
    if kpi_calculator is not None:
        return dict(kpi_calculator.calculate_kpis(log, last_maze_state))
    kpi_rows = event_rows(log, topic=BaseEnvEvents.__name__, event=BaseEnvEvents.kpi.__name__)
    return {row.attributes["name"]: row.attributes["value"] for row in kpi_rows}
