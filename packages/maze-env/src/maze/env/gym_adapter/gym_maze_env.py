"""GymMazeEnv: wrap any gymnasium env (by id or instance) as a MazeEnv."""

from __future__ import annotations

from typing import Any, Optional, Union

import gymnasium as gym
from maze.env.core.maze_env import MazeEnv
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.conversion import GymActionConversion, GymObservationConversion
from maze.env.gym_adapter.core_env import GymCoreEnv
from maze.env.utils.install_hints import pip_install_command
from maze.env.utils.trust import check_trusted_path, trusted_factory

__all__ = ["GymMazeEnv", "UnknownGymEnvError", "make_gym_maze_env"]


class GymMazeEnv(MazeEnv[GymCoreEnv]):
    """A gymnasium env with dict spaces.

    ``GymMazeEnv("CartPole-v1")`` has the observation space
    ``Dict(observation: Box(4,))`` and the action space ``Dict(action: Discrete(2))``;
    dict spaces of the gymnasium env pass through unchanged.

    Args:
        env: A gymnasium env id (made with ``gymnasium.make``) or an env instance.
        **make_kwargs: Passed to ``gymnasium.make`` when ``env`` is an id.
    """

    def __init__(self, env: Union[str, gym.Env], **make_kwargs: Any) -> None:
        if isinstance(env, str):
            env = _make(env, **make_kwargs)
        elif make_kwargs:
            raise TypeError(
                f"GymMazeEnv got an env instance and make() arguments {sorted(make_kwargs)}; pass an id instead"
            )
        self.render_mode = env.render_mode
        self.metadata = env.metadata
        self._description = repr(env.spec.id if env.spec is not None else env)
        """The gymnasium env's id (or repr), kept for ``repr`` also once the core env is replaced (deployment)."""
        super().__init__(
            core_env=GymCoreEnv(env),
            action_conversion_dict={0: GymActionConversion(env.action_space)},
            observation_conversion_dict={0: GymObservationConversion(env.observation_space)},
        )

    @property
    def gym_env(self) -> gym.Env:
        """The wrapped gymnasium env."""
        return self.core_env.env

    def __repr__(self) -> str:
        return f"GymMazeEnv({self._description})"

    def render(self) -> Any:
        """Renders the gymnasium env."""
        return self.core_env.env.render()


@trusted_factory
def make_gym_maze_env(name: str, render_mode: Optional[str] = None, **kwargs: Any) -> GymMazeEnv:
    """Makes the gymnasium env ``name`` and wraps it as a :class:`GymMazeEnv`.

    This is the env factory of the ``env=gym_env`` config (``name: CartPole-v1``).
    """
    return GymMazeEnv(name, render_mode=render_mode, **kwargs)


class UnknownGymEnvError(ConfigurationError, gym.error.Error):
    """A gymnasium env id that cannot be made (unknown id or missing package); a ConfigurationError."""


def _make(env_id: str, **make_kwargs: Any) -> gym.Env:
    if ":" in env_id:  # gymnasium imports the module of "module:EnvName" ids
        check_trusted_path(env_id.split(":", 1)[0])
    try:
        return gym.make(env_id, **make_kwargs)
    except gym.error.DependencyNotInstalled as error:
        if "box2d" in str(error).lower():  # gymnasium's own advice (swig, gymnasium[box2d]) ignores our extra
            raise UnknownGymEnvError(
                f"could not make the gymnasium env {env_id!r}: it needs Box2D, which is not installed. Install "
                f"maze-env's box2d extra (a prebuilt wheel, no swig needed): {pip_install_command('maze-env[box2d]')}"
            ) from error
        raise UnknownGymEnvError(
            f"could not make the gymnasium env {env_id!r}: {str(error).rstrip('.')}; install the package it names"
        ) from error
    except gym.error.Error as error:
        detail = str(error).rstrip(". ")
        raise UnknownGymEnvError(
            f"could not make the gymnasium env {env_id!r}: {detail}{'' if detail.endswith('?') else '.'} Check the id "
            "(e.g. 'CartPole-v1') and that the package providing it is installed"
        ) from error
