"""The structured vector env interface and the per-env stepping logic every vector env shares."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, NamedTuple, Optional, Sequence, Union

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.errors import ConfigurationError, InvalidActionError, MazeError

__all__ = [
    "StructuredVectorEnv",
    "EnvDescription",
    "EnvStepResult",
    "EnvResetResult",
    "describe_env",
    "step_with_autoreset",
    "reset_env",
]

SeedType = Union[int, Sequence[Optional[int]], None]


class EnvDescription(NamedTuple):
    """What a vector env needs to know about one of its envs before stepping it."""

    observation_spaces_dict: dict[StepKeyType, spaces.Dict]
    action_spaces_dict: dict[StepKeyType, spaces.Dict]
    agent_counts_dict: dict[StepKeyType, int]
    actor_id: ActorID


EnvStepResult = tuple[dict[str, Any], Any, bool, bool, dict[str, Any], ActorID]
"""One env's part of a vector step: ``(observation, reward, terminated, truncated, info, actor_id)``.

A plain tuple, as it is built once per env and step.
"""

EnvResetResult = tuple[dict[str, Any], dict[str, Any], ActorID]
"""One env's part of a vector reset: ``(observation, info, actor_id)``."""


def describe_env(env: Any) -> EnvDescription:
    """Reads the spaces, agent counts and current actor of a structured env."""
    return EnvDescription(env.observation_spaces_dict, env.action_spaces_dict, env.agent_counts_dict, env.actor_id())


def step_with_autoreset(env: Any, action: dict[str, Any]) -> EnvStepResult:
    """Steps one env and resets it right away when its episode ended.

    Every vector env steps its envs with this function, so all of them produce the same
    trajectories for the same seeds and actions.

    Returns:
        ``(observation, reward, terminated, truncated, info, actor_id)``: the step's reward,
        ``terminated`` and ``truncated``, and the actor that acts next. When the episode went on, the
        observation and info are the step's own. When it ended, the observation is the first
        one of the new episode and the info is the reset info plus ``final_observation``
        (the last observation of the ended episode) and ``final_info`` (its last step info).
    """
    observation, reward, terminated, truncated, info = env.step(action)
    if terminated or truncated:
        new_observation, reset_info = env.reset()
        info = {**reset_info, "final_observation": observation, "final_info": info}
        observation = new_observation
    return observation, reward, terminated, truncated, info, env.actor_id()


def reset_env(env: Any, seed: Optional[int], options: Optional[dict]) -> EnvResetResult:
    """Resets one env and reads the actor that acts first."""
    observation, info = env.reset(seed=seed, options=options)
    return observation, info, env.actor_id()


class StructuredVectorEnv(ABC):
    """Steps ``n_envs`` structured envs in lockstep with batched dict observations and actions.

    * ``reset(seed=..., options=...)`` returns ``(observations, infos)``; ``step(actions)``
      returns ``(observations, rewards, terminated, truncated, infos)``.
    * ``actions`` is a dict with one array of shape ``(n_envs, *action_shape)`` per key of the
      current action space, e.g. ``{'action': np.array([0, 1])}``.
    * Observations are dicts with one array of shape ``(n_envs, *space.shape)`` (dtype of the
      space) per key of the current observation space; rewards are float64 arrays of shape
      ``(n_envs,)``, ``terminated``/``truncated`` bool arrays of shape ``(n_envs,)`` and infos
      a tuple of ``n_envs`` dicts.
    * **Auto-reset**: an env whose episode ended (terminated or truncated) is reset within the
      same ``step``. Its row of the batch holds the first observation of the new episode, its
      reward and flags belong to the ended episode, and its info holds ``final_observation``
      (the ended episode's last observation, needed to bootstrap values through truncation)
      and ``final_info`` (the ended episode's last info).
    * Seeding: ``seed=int`` gives env ``i`` the seed ``seed + i``, a sequence gives each env
      its own seed, and ``None`` leaves the envs' random generators alone.

    Structured envs are batched with the spaces of the current sub-step key, so all envs must
    be at the same sub-step. Envs whose episodes end only after a full round of sub-steps
    stay in step; agents may differ (see :meth:`actor_ids`).

    Args:
        descriptions: Spaces and first actor of each env (all envs must have the same spaces).
        copy_observations: Return copies of the batch buffers. With ``False`` the returned
            arrays are the preallocated buffers, overwritten by the next ``step``/``reset``.
    """

    def __init__(self, descriptions: Sequence[EnvDescription], copy_observations: bool = True) -> None:
        if not descriptions:
            raise ConfigurationError(f"{type(self).__name__} needs at least one env factory; got none")
        first = descriptions[0]
        for index, description in enumerate(descriptions[1:], start=1):
            for field in ("observation_spaces_dict", "action_spaces_dict", "agent_counts_dict"):
                if getattr(description, field) != getattr(first, field):
                    raise ConfigurationError(
                        f"{type(self).__name__}: env {index} has the {field} {getattr(description, field)}, env 0 "
                        f"has {getattr(first, field)}; all env factories must build envs with the same spaces"
                    )
        self._n_envs = len(descriptions)
        self._observation_spaces_dict = first.observation_spaces_dict
        self._action_spaces_dict = first.action_spaces_dict
        self._agent_counts_dict = first.agent_counts_dict
        self._copy_observations = copy_observations
        self._actor_ids = [description.actor_id for description in descriptions]
        self._buffers = {key: self._allocate(key, space) for key, space in self._observation_spaces_dict.items()}
        self._action_keys = {key: tuple(space.spaces) for key, space in self._action_spaces_dict.items()}

    # --- to implement --------------------------------------------------------------------

    @abstractmethod
    def _reset_envs(self, seeds: list[Optional[int]], options: Optional[dict]) -> Sequence[EnvResetResult]:
        """Resets every env (env ``i`` with ``seeds[i]``) and returns their results in order."""

    @abstractmethod
    def _step_envs(self, actions: list[dict[str, Any]]) -> Sequence[EnvStepResult]:
        """Steps every env (env ``i`` with ``actions[i]``, auto-resetting) and returns the results."""

    @abstractmethod
    def close(self) -> None:
        """Closes all envs; calling it twice is allowed."""

    # --- gymnasium-style API -------------------------------------------------------------

    @property
    def n_envs(self) -> int:
        """Number of envs stepped together."""
        return self._n_envs

    def reset(
        self, *, seed: SeedType = None, options: Optional[dict] = None
    ) -> tuple[dict[str, np.ndarray], tuple[dict[str, Any], ...]]:
        """Resets all envs.

        Args:
            seed: ``int`` (env ``i`` gets ``seed + i``), one seed per env, or None.
            options: Passed to every env's ``reset``.

        Returns:
            ``(observations, infos)``: arrays of shape ``(n_envs, ...)`` and one info per env.
        """
        observations, infos, actor_ids = zip(*self._reset_envs(self._env_seeds(seed), options), strict=True)
        return self._batch(observations, actor_ids), infos

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, tuple[dict[str, Any], ...]]:
        """Steps every env with its row of ``actions``, resetting envs whose episode ended.

        Args:
            actions: One array of shape ``(n_envs, *action_shape)`` per action key of the
                current sub-step.

        Returns:
            ``(observations, rewards, terminated, truncated, infos)``; see the class docs.
        """
        observations, rewards, terminated, truncated, infos, actor_ids = zip(
            *self._step_envs(self._unbatch(actions)), strict=True
        )
        batch = self._batch(observations, actor_ids)
        return batch, np.array(rewards, dtype=np.float64), np.array(terminated, bool), np.array(truncated, bool), infos

    def __enter__(self) -> StructuredVectorEnv:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # --- structured env ------------------------------------------------------------------

    def actor_ids(self) -> list[ActorID]:
        """The actor that acts next in each env."""
        return list(self._actor_ids)

    def actor_id(self) -> ActorID:
        """The actor that acts next, shared by all envs.

        Raises:
            MazeError: When the envs wait for different actors (use :meth:`actor_ids`).
        """
        first = self._actor_ids[0]
        if self._actor_ids.count(first) != self._n_envs:
            raise MazeError(
                f"actor_id() needs all envs to wait for the same actor, but they wait for {self._actor_ids}; "
                "use actor_ids() to get the actor of each env"
            )
        return first

    @property
    def observation_spaces_dict(self) -> dict[StepKeyType, spaces.Dict]:
        """Observation space of one env per sub-step key."""
        return self._observation_spaces_dict

    @property
    def action_spaces_dict(self) -> dict[StepKeyType, spaces.Dict]:
        """Action space of one env per sub-step key."""
        return self._action_spaces_dict

    @property
    def agent_counts_dict(self) -> dict[StepKeyType, int]:
        """Agents per sub-step key."""
        return self._agent_counts_dict

    @property
    def observation_space(self) -> spaces.Dict:
        """Observation space of one env at the current sub-step (unbatched)."""
        return self._observation_spaces_dict[self._actor_ids[0][0]]

    @property
    def action_space(self) -> spaces.Dict:
        """Action space of one env at the current sub-step (unbatched)."""
        return self._action_spaces_dict[self._actor_ids[0][0]]

    # --- helpers -------------------------------------------------------------------------

    def _allocate(self, step_key: StepKeyType, space: spaces.Dict) -> dict[str, np.ndarray]:
        """One batch buffer of shape ``(n_envs, *space.shape)`` per observation key."""
        buffers = {}
        for key, subspace in space.spaces.items():
            if subspace.shape is None or subspace.dtype is None:
                raise ConfigurationError(
                    f"{type(self).__name__} cannot batch the observation {key!r} of sub-step {step_key!r}: its space "
                    f"{subspace} has no fixed shape and dtype; flatten it with an observation wrapper first"
                )
            buffers[key] = np.zeros((self._n_envs, *subspace.shape), dtype=subspace.dtype)
        return buffers

    def _env_seeds(self, seed: SeedType) -> list[Optional[int]]:
        if seed is None:
            return [None] * self._n_envs
        if isinstance(seed, (int, np.integer)):
            return [int(seed) + index for index in range(self._n_envs)]
        seeds = list(seed)
        if len(seeds) != self._n_envs:
            raise ValueError(f"reset() got {len(seeds)} seeds for {self._n_envs} envs; pass one seed per env or an int")
        return seeds

    def _unbatch(self, actions: dict[str, Any]) -> list[dict[str, Any]]:
        """Splits the batched action dict into one action dict per env."""
        keys = self._action_keys[self._actor_ids[0][0]]
        try:
            columns = [actions[key] for key in keys]
        except (KeyError, TypeError, IndexError) as error:
            raise InvalidActionError(
                f"step() needs a dict with one array per action key {list(keys)} of sub-step "
                f"{self._actor_ids[0][0]!r}; got {actions!r}"
            ) from error
        for key, column in zip(keys, columns, strict=True):
            if np.ndim(column) == 0 or len(column) != self._n_envs:
                raise InvalidActionError(
                    f"step() got the action {key!r} with shape {np.shape(column)}; it needs a leading batch "
                    f"dimension of n_envs={self._n_envs}"
                )
        if len(keys) == 1:  # the common single-head case skips the zips
            key = keys[0]
            return [{key: value} for value in columns[0]]
        return [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]

    def _batch(self, observations: Sequence[dict[str, Any]], actor_ids: Sequence[ActorID]) -> dict[str, np.ndarray]:
        """Fills the buffers of the current sub-step row by row and returns them (or copies)."""
        self._actor_ids = list(actor_ids)
        step_keys = {actor_id[0] for actor_id in actor_ids}
        if len(step_keys) > 1:
            raise MazeError(
                f"{type(self).__name__} cannot batch observations of different sub-steps: the envs wait for the "
                f"actors {self._actor_ids}. The envs' episodes must end only after the last sub-step of an env step"
            )
        buffers = self._buffers[actor_ids[0][0]]
        try:
            for key, buffer in buffers.items():
                for row, observation in enumerate(observations):
                    buffer[row] = observation[key]
        except (KeyError, ValueError) as error:
            raise MazeError(
                f"{type(self).__name__}: an observation does not fit the observation space "
                f"{self._observation_spaces_dict[actor_ids[0][0]]} of sub-step {actor_ids[0][0]!r} "
                f"({type(error).__name__}: {error})"
            ) from error
        if self._copy_observations:
            return {key: buffer.copy() for key, buffer in buffers.items()}
        return dict(buffers)
