"""The structured vector env interface: batching, auto-reset, seeding and per-env calls."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Optional, Sequence, Union

import numpy as np
from gymnasium import spaces
from maze.env.core.actor import ActorID, StepKeyType
from maze.env.errors import ConfigurationError, InvalidActionError, MazeError
from maze.env.vector.env_ops import EnvDescription, EnvResetResult, EnvStepResult

__all__ = ["MessagingVectorEnv", "StructuredVectorEnv"]

SeedType = Union[int, Sequence[Optional[int]], None]


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
    * Errors inside an env name the env index. An ``InvalidActionError`` or
      ``ConfigurationError`` keeps its kind, any other error becomes an ``EnvWorkerError``
      (see :func:`~maze.env.vector.env_ops.env_error_kind`).

    Structured envs are batched with the spaces of the current sub-step key, so all envs must
    be at the same sub-step. Envs whose episodes end only after a full round of sub-steps
    stay in step; agents may differ (see :meth:`actor_ids`).

    Args:
        descriptions: Spaces and first actor of each env (all envs must have the same spaces).
        copy_observations: Return new arrays on every ``step``/``reset``. With ``False`` the
            returned arrays are preallocated buffers, overwritten by the next ``step``/``reset``.
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
        self._several_step_keys = len(self._observation_spaces_dict) > 1
        # Per sub-step and observation key: shape (n_envs, *space.shape) and dtype of the batch.
        self._layouts = {key: self._layout(key, space) for key, space in self._observation_spaces_dict.items()}
        # The preallocated batch arrays that copy_observations=False hands out (and overwrites).
        self._buffers = (
            {}
            if copy_observations
            else {
                step_key: {key: np.zeros(shape, dtype) for key, (shape, dtype) in layout.items()}
                for step_key, layout in self._layouts.items()
            }
        )
        self._action_keys = {key: tuple(space.spaces) for key, space in self._action_spaces_dict.items()}

    # --- to implement --------------------------------------------------------------------

    @abstractmethod
    def _reset_envs(self, seeds: list[Optional[int]], options: Optional[dict]) -> Sequence[EnvResetResult]:
        """Resets every env (env ``i`` with ``seeds[i]``) and returns their results in order."""

    @abstractmethod
    def _step_envs(self, actions: list[dict[str, Any]]) -> Sequence[EnvStepResult]:
        """Steps every env (env ``i`` with ``actions[i]``, auto-resetting) and returns the results."""

    @abstractmethod
    def _call_envs(self, method_name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """Runs :func:`~maze.env.vector.env_ops.call_env` on every env; returns the results in env order."""

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

    def reset_each(
        self, *, seed: SeedType = None, options: Optional[dict] = None
    ) -> tuple[list[dict[str, Any]], tuple[dict[str, Any], ...]]:
        """Like :meth:`reset`, but returns one observation dict per env instead of a batch.

        For envs with dynamic agents (see :meth:`step_each`), whose envs may wait for actors
        of different sub-steps.
        """
        observations, infos, actor_ids = zip(*self._reset_envs(self._env_seeds(seed), options), strict=True)
        self._actor_ids = list(actor_ids)
        return list(observations), infos

    def step_each(
        self, actions: Sequence[dict[str, Any]]
    ) -> tuple[list[dict[str, Any]], np.ndarray, np.ndarray, np.ndarray, tuple[dict[str, Any], ...]]:
        """Steps env ``i`` with ``actions[i]`` and returns one observation dict per env, unbatched.

        Unlike :meth:`step`, the envs may wait for actors of different sub-steps (e.g. a
        hierarchical env where one env's high-level policy acts while another env's
        low-level policy acts): each env gets an action of its own actor's space and
        :meth:`actor_ids` names the actor each observation belongs to. Auto-reset, rewards,
        flags and infos are as in :meth:`step`. The observation dicts are the envs' own
        (copy what you keep).

        Args:
            actions: One action dict per env, for the actor the env waits for.

        Returns:
            ``(observations, rewards, terminated, truncated, infos)``.
        """
        if len(actions) != self._n_envs:
            raise InvalidActionError(f"step_each() needs one action dict per env ({self._n_envs}), got {len(actions)}")
        observations, rewards, terminated, truncated, infos, actor_ids = zip(
            *self._step_envs(list(actions)), strict=True
        )
        self._actor_ids = list(actor_ids)
        return (
            list(observations),
            np.array(rewards, dtype=np.float64),
            np.array(terminated, bool),
            np.array(truncated, bool),
            infos,
        )

    def call(self, method_name: str, *args: Any, **kwargs: Any) -> list[Any]:
        """Calls ``method_name(*args, **kwargs)`` on every env (e.g. to collect per-env statistics).

        Where the envs live in worker processes the calls run there, so arguments and
        results must be picklable. An attribute that is no method is returned as it is.

        Args:
            method_name: Name of a method or attribute of the envs (wrapper stacks pass
                unknown names inward).
            args: Positional arguments of every call.
            kwargs: Keyword arguments of every call.

        Returns:
            One result per env, in env order.

        Raises:
            MazeError: Like :meth:`step`: an env's ``InvalidActionError`` or
                ``ConfigurationError`` keeps its kind, any other error becomes an
                ``EnvWorkerError``; the message names the env index.
        """
        if not isinstance(method_name, str):
            raise TypeError(f"call() needs the method name as a str, got {method_name!r}")
        return self._call_envs(method_name, args, kwargs)

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

    def _layout(self, step_key: StepKeyType, space: spaces.Dict) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
        """Shape ``(n_envs, *space.shape)`` and dtype of the batch of every observation key."""
        layout = {}
        for key, subspace in space.spaces.items():
            if subspace.shape is None or subspace.dtype is None:
                raise ConfigurationError(
                    f"{type(self).__name__} cannot batch the observation {key!r} of sub-step {step_key!r}: its space "
                    f"{subspace} has no fixed shape and dtype; flatten it with an observation wrapper first"
                )
            layout[key] = ((self._n_envs, *subspace.shape), subspace.dtype)
        return layout

    def _env_seeds(self, seed: SeedType) -> list[Optional[int]]:
        if seed is None:
            return [None] * self._n_envs
        if isinstance(seed, (int, np.integer)):
            return [int(seed) + index for index in range(self._n_envs)]
        seeds = list(seed)
        if len(seeds) != self._n_envs:
            raise ValueError(f"reset() got {len(seeds)} seeds for {self._n_envs} envs; pass one seed per env or an int")
        for index, env_seed in enumerate(seeds):
            if env_seed is not None and (isinstance(env_seed, bool) or not isinstance(env_seed, (int, np.integer))):
                raise ValueError(f"reset() got the seed {env_seed!r} for env {index}; seeds must be ints or None")
        return [None if env_seed is None else int(env_seed) for env_seed in seeds]

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
        """Writes the observations row by row into new arrays (or the preallocated buffers) and returns them."""
        self._actor_ids = list(actor_ids)
        step_key = actor_ids[0][0]
        if self._several_step_keys and any(actor_id[0] != step_key for actor_id in actor_ids):
            raise MazeError(
                f"{type(self).__name__} cannot batch observations of different sub-steps: the envs wait for the "
                f"actors {self._actor_ids}. The envs' episodes must end only after the last sub-step of an env step"
            )
        if self._copy_observations:
            batch = {key: np.empty(shape, dtype) for key, (shape, dtype) in self._layouts[step_key].items()}
        else:
            batch = dict(self._buffers[step_key])
        try:
            for key, array in batch.items():
                for row, observation in enumerate(observations):
                    array[row] = observation[key]
        except (KeyError, ValueError) as error:
            raise MazeError(
                f"{type(self).__name__}: an observation does not fit the observation space "
                f"{self._observation_spaces_dict[step_key]} of sub-step {step_key!r} ({type(error).__name__}: {error})"
            ) from error
        return batch


class MessagingVectorEnv(StructuredVectorEnv):
    """A vector env whose envs live elsewhere (worker processes, Ray actors) and answer commands.

    Subclasses implement :meth:`_request_all`; reset, step and call become one command each
    (see :data:`~maze.env.vector.env_ops.ENV_COMMANDS`).
    """

    @abstractmethod
    def _request_all(self, command: str, payloads: list[Any]) -> list[Any]:
        """Runs ``command`` on every env with its payload (env ``i`` with ``payloads[i]``); results in env order."""

    def _reset_envs(self, seeds: list[Optional[int]], options: Optional[dict]) -> list[EnvResetResult]:
        return self._request_all("reset", [(seed, options) for seed in seeds])

    def _step_envs(self, actions: list[dict[str, Any]]) -> list[EnvStepResult]:
        return self._request_all("step", actions)

    def _call_envs(self, method_name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        return self._request_all("call", [(method_name, args, kwargs)] * self.n_envs)
