"""Simulation support for MazeEnvs: the MazeEnv side of :class:`~maze.env.core.mixins.SimulatedEnvMixin`.

A simulation is a CoreEnv that implements ``clone_from`` and ``set_maze_state`` (its own
state, its random generators) plus a MazeEnv that inherits :class:`SimulatedMazeEnv`::

    class MyCoreEnv(CoreEnv, SimulatedEnvMixin):
        def clone_from(self, env): ...          # copy env's state and RNG state, share nothing mutable
        def set_maze_state(self, maze_state): ...  # continue from maze_state

    class MyEnv(SimulatedMazeEnv, MazeEnv[MyCoreEnv]):
        ...

Check both with :func:`maze.env.testing.check_simulated_env`.
"""

from __future__ import annotations

import copy
from typing import Any

from maze.env.core.mixins import SimulatedEnvMixin
from maze.env.errors import SimulationUnsupportedError

__all__ = ["SimulatedMazeEnv", "innermost_env", "require_simulated_env"]


class SimulatedMazeEnv(SimulatedEnvMixin):
    """Mixin of a MazeEnv whose core env is a :class:`SimulatedEnvMixin`: delegates, keeps the MazeEnv in step.

    List it before ``MazeEnv`` in the bases. The MazeEnv's record of the current MazeState
    (which its action conversion reads) follows the core env; after :meth:`set_maze_state`
    there is no last MazeAction.
    """

    core_env: Any
    _maze_state: Any
    _maze_action: Any

    def clone_from(self, env: Any) -> None:
        """Copies the core env's state from ``env`` (a MazeEnv of the same kind, or a wrapper stack around one).

        Raises:
            ValueError: ``env`` holds no MazeEnv of this kind.
        """
        source = innermost_env(env)
        if type(source) is not type(self):
            raise ValueError(
                f"{type(self).__name__}.clone_from needs a {type(self).__name__}, got {type(source).__name__}"
            )
        self.core_env.clone_from(source.core_env)
        self._maze_state = self.core_env.get_maze_state()
        self._maze_action = copy.deepcopy(source.get_maze_action())

    def set_maze_state(self, maze_state: Any) -> None:
        """Sets the core env to ``maze_state`` (see :meth:`SimulatedEnvMixin.set_maze_state`)."""
        self.core_env.set_maze_state(maze_state)
        self._maze_state = self.core_env.get_maze_state()
        self._maze_action = None


def innermost_env(env: Any) -> Any:
    """The env at the bottom of a wrapper stack (``env`` itself when it is no wrapper)."""
    while getattr(type(env), "_is_maze_wrapper", False):
        env = vars(env)["env"]
    return env


def require_simulated_env(env: Any, purpose: str) -> None:
    """Raises :class:`SimulationUnsupportedError` unless ``env`` (or a layer of its stack) is a SimulatedEnvMixin.

    Args:
        env: The env (or wrapper stack) to check.
        purpose: Who needs the simulation, for the message (e.g. ``"AgentDeployment.recommend"``).
    """
    if isinstance(env, SimulatedEnvMixin):
        return
    name = type(innermost_env(env)).__name__
    raise SimulationUnsupportedError(
        f"{purpose} needs a simulation env, but {name} does not implement SimulatedEnvMixin (clone_from, "
        f"set_maze_state). Add it: give the core env the mixin (class MyCoreEnv(CoreEnv, SimulatedEnvMixin) with "
        f"clone_from(env) and set_maze_state(maze_state)) and let {name} inherit "
        "maze.env.core.simulation.SimulatedMazeEnv before MazeEnv; check both with "
        "maze.env.testing.check_simulated_env(env)"
    )
