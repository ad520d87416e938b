"""One forecast rollout: a simulation env set to a MazeState takes a candidate, then the policy's choices.

:func:`simulate` is the only place rollouts run, in this process and in worker processes
alike, so both give the same numbers for the same seed. The rollout's events are kept per
step and evaluated at its end: the env's KPI calculator gets them as an episode event log
(the horizon is the episode), and :func:`event_statistics` counts events and sums their
numeric attributes (names: see :mod:`maze.deploy.recommendation`).
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from maze.deploy.policy_executor import PolicyExecutor
from maze.env.core.events import EventRecord
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.step_event_log import StepEventLog

__all__ = ["RolloutResult", "event_statistics", "start_simulation", "simulate"]


@dataclass(frozen=True)
class RolloutResult:
    """What one finished rollout forecasts.

    Attributes:
        total_return: Summed reward of all sub-steps.
        kpis: The KPIs of the env's KPI calculator over the rollout.
        events: Event counts and attribute sums over the rollout.
        env_steps: Env steps the rollout took (less than the horizon when the episode ended).
    """

    total_return: float
    kpis: dict[str, float]
    events: dict[str, float]
    env_steps: int


def start_simulation(env: Any, maze_state: Any, seed: int) -> Any:
    """Starts a seeded simulation at ``maze_state``; returns the observation of the actor that acts first.

    ``env.reset(seed=seed)`` seeds the env (and resets its wrappers), ``set_maze_state`` moves
    it to ``maze_state``; the observation is what the wrapper stack makes of the state.
    """
    env.reset(seed=seed)
    env.set_maze_state(maze_state)
    observations, _ = env.get_observation_and_action_dicts(env.get_maze_state(), None, True)
    return observations[env.actor_id()[0]]


def simulate(
    env: Any,
    executor: PolicyExecutor,
    maze_state: Any,
    first_action: Any,
    seed: int,
    horizon: int,
    deadline: Optional[float] = None,
) -> Optional[RolloutResult]:
    """Rolls ``env`` forward from ``maze_state``: ``first_action``, then the policy's most likely actions.

    Args:
        env: The simulation env (a SimulatedEnvMixin stack).
        executor: Runs the policy (deterministically: the forecast's spread is the simulation's).
        maze_state: Where the rollout starts.
        first_action: The candidate (an action of the acting sub-step's space).
        seed: Seeds the simulation (``reset(seed=seed)`` before the state is set).
        horizon: Env steps to simulate; the rollout also stops when the episode ends, and
            after ``horizon`` times the agents per env step of sub-steps (envs whose time
            does not advance).
        deadline: ``time.time()`` after which the rollout is abandoned (None: no limit).

    Returns:
        The forecast, or None when the deadline passed first.
    """
    observation = start_simulation(env, maze_state, seed)
    start_time = env.get_env_time()
    sub_steps = horizon * max(1, sum(count for count in env.agent_counts_dict.values() if count > 0))
    logs: list[StepEventLog] = []
    total, action, last_state = 0.0, first_action, env.get_maze_state()
    for _ in range(sub_steps):
        if deadline is not None and time.time() > deadline:
            return None
        env_time = env.get_env_time()
        if env_time - start_time >= horizon:
            break
        if action is None:
            action = executor.compute_action(observation, last_state, env, env.actor_id(), deterministic=True)
        observation, reward, terminated, truncated, _ = env.step(action)
        action = None
        total += float(np.sum(reward))
        logs.append(StepEventLog(env_time, list(env.get_step_events())))
        last_state = env.get_maze_state()
        if terminated or truncated:
            break
    calculator = env.get_kpi_calculator()
    kpis = {} if calculator is None else calculator.calculate_kpis(EpisodeEventLog("forecast", logs), last_state)
    events = event_statistics(event for log in logs for event in log.events)
    env_steps = max(env.get_env_time() - start_time, 0)
    return RolloutResult(total, {str(k): float(v) for k, v in kpis.items()}, events, env_steps)


def event_statistics(events: Iterable[EventRecord]) -> dict[str, float]:
    """``"<Topic>.<event>.count"`` per fired event kind and ``"<Topic>.<event>.<attribute>.sum"`` per numeric attribute.

    Bool and non-numeric attributes (sizes as tuples, names) are left out.
    """
    statistics: dict[str, float] = {}
    for topic, method, attributes in events:
        name = f"{topic.__name__}.{method.__name__}"
        statistics[f"{name}.count"] = statistics.get(f"{name}.count", 0.0) + 1.0
        for attribute, value in attributes.items():
            if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
                key = f"{name}.{attribute}.sum"
                statistics[key] = statistics.get(key, 0.0) + float(value)
    return statistics
