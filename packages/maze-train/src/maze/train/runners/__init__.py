"""The shared pieces of the training runners: the base :class:`TrainingRunner`, env factories, run directories.

Each algorithm has one runner, in its folder (``maze.train.trainers.<algorithm>.runner``; the
actor-critic family shares :class:`~maze.train.runners.actor_critic_runner.ActorCriticRunner`);
the execution backend it is handed (:mod:`maze.train.backends`) decides where envs step and
policies act.

The names below are imported on first use: an env worker process that unpickles an
:class:`EnvFactory` imports only :mod:`maze.train.runners.env_factory` (maze-env, no torch).
"""

from __future__ import annotations

from maze.env.utils.lazy_exports import lazy_getattr

_EXPORTS = {
    "EnvFactory": "maze.train.runners.env_factory",
    "TrainingRunner": "maze.train.runners.training_runner",
}

__all__ = list(_EXPORTS)

__getattr__ = lazy_getattr("maze.train.runners", _EXPORTS)
