"""MazeEnvMonitoringWrapper: fires observation, action and reward events for the statistics."""

from __future__ import annotations

from typing import Any, Callable, Optional

from gymnasium import spaces
from maze.env.core.actor import StepKeyType
from maze.env.core.events import EventService
from maze.env.core.maze_env import MazeEnv
from maze.env.errors import ConfigurationError
from maze.env.log_stats.base_events import (
    ContinuousActionEvents,
    DiscreteActionEvents,
    MultiBinaryActionEvents,
    ObservationEvents,
    RewardEvents,
)
from maze.env.wrappers._shared import inner_spaces_dict
from maze.env.wrappers.wrapper import Wrapper

__all__ = ["MazeEnvMonitoringWrapper"]

_ACTION_TOPICS: tuple[tuple[type[spaces.Space], type], ...] = (
    (spaces.Discrete, DiscreteActionEvents),
    (spaces.MultiDiscrete, DiscreteActionEvents),
    (spaces.MultiBinary, MultiBinaryActionEvents),
    (spaces.Box, ContinuousActionEvents),
)

_ActionFirers = list[tuple[Callable[..., None], str, Optional[str], str]]
"""Per sub-step: (fire the topic's ``action`` event, substep name, action key, name attribute); key None: the whole
action."""


class MazeEnvMonitoringWrapper(Wrapper[Any]):
    """Fires ObservationEvents, action events and RewardEvents on every step.

    The events go into the event service of the wrapped MazeEnv's context, after the inner
    step returned, so they belong to that step's events (``get_step_events()``): a
    :class:`~maze.env.wrappers.log_stats_wrapper.LogStatsWrapper` above this wrapper turns
    them into statistics, e.g. the console rows ``DiscreteActionEvents action
    substep_0/<action key>``. Observations of ``reset()`` are not logged.

    * ``action_logging``: one ``action(substep_name, name, value)`` event per action key of
      the acting sub-step — ``DiscreteActionEvents`` for Discrete and MultiDiscrete,
      ``MultiBinaryActionEvents`` for MultiBinary and ``ContinuousActionEvents`` for Box spaces.
    * ``observation_logging``: ``observation_processed`` (the observation this wrapper
      returns) and ``observation_original`` (the MazeEnv's conversion of the current
      MazeState) per observation key of the sub-step that acts next.
    * ``reward_logging``: ``RewardEvents.reward_processed`` with the step's reward.

    Args:
        env: A MazeEnv or a wrapper stack around one.
        observation_logging: Fire observation events.
        action_logging: Fire action events.
        reward_logging: Fire reward events.
    """

    def __init__(self, env: Any, observation_logging: bool, action_logging: bool, reward_logging: bool) -> None:
        super().__init__(env)
        for name, value in (
            ("observation_logging", observation_logging),
            ("action_logging", action_logging),
            ("reward_logging", reward_logging),
        ):
            if not isinstance(value, bool):
                raise ConfigurationError(f"MazeEnvMonitoringWrapper: {name} must be true or false, got {value!r}")
        if not isinstance(env, MazeEnv):
            raise ConfigurationError(
                f"MazeEnvMonitoringWrapper needs a MazeEnv inside its wrapper stack (it fires events into the MazeEnv's "
                f"context), got {type(env).__name__}; wrap a gymnasium env with GymMazeEnv first"
            )
        self.observation_logging = observation_logging
        self.action_logging = action_logging
        self.reward_logging = reward_logging
        self._maze_env: MazeEnv = env.unwrapped
        service = self._maze_env.core_env.context.event_service
        self._fire_observation_original = service.event_firer(ObservationEvents, ObservationEvents.observation_original)
        self._fire_observation_processed = service.event_firer(
            ObservationEvents, ObservationEvents.observation_processed
        )
        self._fire_reward = service.event_firer(RewardEvents, RewardEvents.reward_processed)
        action_spaces = inner_spaces_dict(env, "action")
        self._action_firers = {
            step_key: self._action_firers_of(service, step_key, space) for step_key, space in action_spaces.items()
        }
        self._only_key: Optional[StepKeyType] = next(iter(action_spaces)) if len(action_spaces) == 1 else None

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict]:
        """Steps the env and fires the enabled events."""
        step_key = self._only_key if self._only_key is not None else self.env.actor_id()[0]
        result = self.env.step(action)
        if self.action_logging:
            for fire, substep_name, key, name in self._action_firers[step_key]:
                fire(substep_name=substep_name, name=name, value=action if key is None else action[key])
        if self.observation_logging:
            self._fire_observations(result[0])
        if self.reward_logging:
            self._fire_reward(value=result[1])
        return result

    def _fire_observations(self, observation: Any) -> None:
        step_key = self._only_key if self._only_key is not None else self.env.actor_id()[0]
        substep_name = f"substep_{step_key}"
        maze_env = self._maze_env
        if self.env is maze_env:  # no wrapper in between: the observation is the MazeEnv's conversion
            original = observation
        else:
            original = maze_env.observation_conversion_dict[step_key].maze_to_space(maze_env.get_maze_state())
        for fire, values in (
            (self._fire_observation_original, original),
            (self._fire_observation_processed, observation),
        ):
            items = values.items() if isinstance(values, dict) else (("observation", values),)
            for name, value in items:
                fire(substep_name=substep_name, name=name, value=value)

    @staticmethod
    def _action_firers_of(service: EventService, step_key: StepKeyType, space: spaces.Space) -> _ActionFirers:
        """The action events to fire for sub-step ``step_key``, one per action key."""
        substep_name = f"substep_{step_key}"
        subspaces = space.spaces.items() if isinstance(space, spaces.Dict) else ((None, space),)
        firers: _ActionFirers = []
        for key, subspace in subspaces:
            topic = next((topic for kind, topic in _ACTION_TOPICS if isinstance(subspace, kind)), None)
            if topic is None:
                raise ConfigurationError(
                    f"MazeEnvMonitoringWrapper cannot log the action {key or 'action'!r} of sub-step {step_key!r}: "
                    f"its space {subspace} is not Discrete, MultiDiscrete, MultiBinary or Box; set action_logging "
                    "to false"
                )
            firers.append((service.event_firer(topic, topic.action), substep_name, key, key or "action"))
        return firers
