"""The shared pieces of the training runners: the base :class:`TrainingRunner`, env factories, run directories.

Each algorithm's runners live beside its trainer (see :mod:`maze.train.trainers`), e.g.
``maze.train.trainers.actor_critic.actor_critic_runners.ACDevRunner`` for A2C/PPO with
``runner=dev``.

The names below are imported on first use: an env worker process that unpickles an
:class:`EnvFactory` imports only :mod:`maze.train.runners.env_factory` (maze-env, no torch).
"""

from __future__ import annotations

from maze.train._lazy import lazy_getattr

_EXPORTS = {
    "EnvFactory": "maze.train.runners.env_factory",
    "TrainingRunner": "maze.train.runners.training_runner",
}

__all__ = list(_EXPORTS)

__getattr__ = lazy_getattr("maze.train.runners", _EXPORTS)
