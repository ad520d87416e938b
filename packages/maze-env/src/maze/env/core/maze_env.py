"""MazeEnv: a CoreEnv seen through observation and action conversions, as a gymnasium env."""

from __future__ import annotations

from typing import Any, Generic, Iterable, Optional, TypeVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.core.conversion import ActionConversionInterface, ObservationConversionInterface
from maze.env.core.core_env import CoreEnv
from maze.env.core.events import EventRecord
from maze.env.core.mixins import (
    EventEnvMixin,
    RecordableEnvMixin,
    SerializableEnvMixin,
    TimeEnvMixin,
)
from maze.env.core.rendering import Renderer
from maze.env.core.spaces_mixin import StructuredEnvSpacesMixin
from maze.env.core.structured_env import StructuredEnv
from maze.env.errors import InvalidActionError

__all__ = ["MazeEnv"]

CoreEnvType = TypeVar("CoreEnvType", bound=CoreEnv)


class MazeEnv(
    gym.Env,
    StructuredEnv,
    StructuredEnvSpacesMixin,
    EventEnvMixin,
    RecordableEnvMixin,
    SerializableEnvMixin,
    TimeEnvMixin,
    Generic[CoreEnvType],
):
    """A CoreEnv plus one observation and one action conversion per sub-step key.

    It is a ``gymnasium.Env`` with dict spaces: ``reset(*, seed=None, options=None)``
    returns ``(obs, info)`` and ``step(action)`` returns
    ``(obs, reward, terminated, truncated, info)``. Which conversion applies depends on
    the actor that acts next (``core_env.actor_id().step_key``).

    Args:
        core_env: The simulation.
        action_conversion_dict: Action conversion per sub-step key.
        observation_conversion_dict: Observation conversion per sub-step key.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        core_env: CoreEnvType,
        action_conversion_dict: dict[StepKeyType, ActionConversionInterface],
        observation_conversion_dict: dict[StepKeyType, ObservationConversionInterface],
    ) -> None:
        if set(action_conversion_dict) != set(observation_conversion_dict):
            raise ValueError(
                "MazeEnv needs one action and one observation conversion per sub-step key; got action keys "
                f"{sorted(map(str, action_conversion_dict))} and observation keys "
                f"{sorted(map(str, observation_conversion_dict))}"
            )
        self.core_env = core_env
        self.action_conversion_dict = action_conversion_dict
        self.observation_conversion_dict = observation_conversion_dict
        self._observation_spaces_dict = {key: conv.space() for key, conv in observation_conversion_dict.items()}
        self._action_spaces_dict = {key: conv.space() for key, conv in action_conversion_dict.items()}
        # Envs with a single sub-step key skip the actor lookup on every step.
        self._only_key: Optional[StepKeyType] = (
            next(iter(action_conversion_dict)) if len(action_conversion_dict) == 1 else None
        )
        # A flat env (one sub-step, one agent) completes an env step with every step() call, so
        # MazeEnv advances the env time itself unless the core env already did. Structured core
        # envs call context.increment_env_step() when a full env step is complete.
        self._counts_env_steps = self._only_key is not None and dict(core_env.agent_counts_dict) == {self._only_key: 1}
        self._maze_state: Any = None
        self._maze_action: Any = None

    # --- gymnasium API -------------------------------------------------------------------

    def step(self, action: dict[str, Any]) -> tuple[dict[str, Any], Any, bool, bool, dict]:
        """Converts the action, steps the core env and converts the resulting state."""
        core_env = self.core_env
        key = self._only_key if self._only_key is not None else core_env.actor_id()[0]
        context = core_env.context
        context.pre_step()
        env_time = context.step_id
        try:
            maze_action = self.action_conversion_dict[key].space_to_maze(action, self._maze_state)
            maze_state, reward, terminated, truncated, info = core_env.step(maze_action)
        except Exception as error:
            self._raise_if_outside_action_space(action, key, error)
            raise
        if self._counts_env_steps and context.step_id == env_time:
            context.step_id += 1
        self._maze_state = maze_state
        self._maze_action = maze_action
        if self._only_key is None:
            key = core_env.actor_id()[0]
        observation = self.observation_conversion_dict[key].maze_to_space(maze_state)
        return observation, reward, terminated, truncated, info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict[str, Any], dict]:
        """Starts a new episode; ``seed`` re-seeds the core env and ``self.np_random``."""
        super().reset(seed=seed)
        self.core_env.context.reset_episode()
        maze_state, info = self.core_env.reset(seed=seed, options=options)
        self._maze_state = maze_state
        self._maze_action = None
        key = self._only_key if self._only_key is not None else self.core_env.actor_id()[0]
        return self.observation_conversion_dict[key].maze_to_space(maze_state), info

    def render(self) -> None:
        """Draws the current state with the core env's renderer."""
        self.get_renderer().render(self._maze_state, self._maze_action, self.get_step_events())

    def close(self) -> None:
        """Closes the core env."""
        self.core_env.close()

    # --- spaces --------------------------------------------------------------------------

    @property
    def observation_space(self) -> spaces.Dict:
        """Observation space of the actor that acts next."""
        return self._observation_spaces_dict[self._current_key()]

    @property
    def action_space(self) -> spaces.Dict:
        """Action space of the actor that acts next."""
        return self._action_spaces_dict[self._current_key()]

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Dict]:
        """Observation space per sub-step key."""
        return self._observation_spaces_dict

    @property
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Dict]:
        """Action space per sub-step key."""
        return self._action_spaces_dict

    @property
    def observation_conversion(self) -> ObservationConversionInterface:
        """Observation conversion of the actor that acts next."""
        return self.observation_conversion_dict[self._current_key()]

    @property
    def action_conversion(self) -> ActionConversionInterface:
        """Action conversion of the actor that acts next."""
        return self.action_conversion_dict[self._current_key()]

    # --- structured env ------------------------------------------------------------------

    def actor_id(self) -> ActorID:
        """The actor that acts next."""
        return self.core_env.actor_id()

    def is_actor_done(self) -> bool:
        """True when the actor that just acted is done for this episode."""
        return self.core_env.is_actor_done()

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        """Agents per sub-step key."""
        return self.core_env.agent_counts_dict

    def get_actor_rewards(self) -> Optional[np.ndarray]:
        """Per-actor split of the last reward, if the core env provides one."""
        return self.core_env.get_actor_rewards()

    # --- mixins --------------------------------------------------------------------------

    def get_maze_state(self) -> Any:
        """The core env's current MazeState."""
        return self.core_env.get_maze_state()

    def get_maze_action(self) -> Any:
        """The MazeAction executed in the last step."""
        return self._maze_action

    def get_episode_id(self) -> str:
        """Unique id of the current episode."""
        return self.core_env.context.episode_id

    def get_renderer(self) -> Renderer:
        """The core env's renderer."""
        return self.core_env.get_renderer()

    def get_serializable_components(self) -> dict[str, Any]:
        """The core env's serializable components."""
        return self.core_env.get_serializable_components()

    def get_step_events(self) -> Iterable[EventRecord]:
        """Events fired during the last step."""
        return self.core_env.get_step_events()

    def get_kpi_calculator(self) -> Optional[Any]:
        """The core env's KPI calculator."""
        return self.core_env.get_kpi_calculator()

    def get_env_time(self) -> int:
        """The core env's time."""
        return self.core_env.get_env_time()

    def get_observation_and_action_dicts(
        self, maze_state: Any, maze_action: Any, first_step_in_episode: bool
    ) -> tuple[Optional[dict[StepKeyType, Any]], Optional[dict[StepKeyType, Any]]]:
        """Converts a recorded MazeState and MazeAction into observation and action dicts.

        Wrappers override this to apply their transformation, so recorded trajectories can
        be replayed through the same wrapper stack. Envs with several sub-steps per
        MazeState override it to fill in every sub-step.

        Returns:
            ``({step_key: observation}, {step_key: action})``; either is None when its
            input is None.
        """
        key = self._current_key()
        observations = (
            None if maze_state is None else {key: self.observation_conversion_dict[key].maze_to_space(maze_state)}
        )
        actions = None if maze_action is None else {key: self.action_conversion_dict[key].maze_to_space(maze_action)}
        return observations, actions

    # --- helpers -------------------------------------------------------------------------

    def _current_key(self) -> StepKeyType:
        return self._only_key if self._only_key is not None else self.core_env.actor_id()[0]

    def _raise_if_outside_action_space(self, action: Any, key: StepKeyType, error: Exception) -> None:
        """Turns a failure caused by an invalid action into an error that names it."""
        space = self._action_spaces_dict[key]
        try:
            inside = space.contains(action)
        except Exception:  # an action of the wrong structure cannot even be checked
            inside = False
        if not inside:
            raise InvalidActionError(
                f"{type(self).__name__}.step got the action {action!r}, which is outside the action space "
                f"{space} of sub-step {key!r}. Sample valid actions with env.action_space.sample() "
                f"(the env raised {type(error).__name__}: {error})"
            ) from error
