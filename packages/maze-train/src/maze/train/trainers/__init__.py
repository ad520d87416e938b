"""The algorithms: one sealed folder each, with the same file names.

``a2c/``, ``ppo/``, ``impala/``, ``sac/``, ``es/`` and ``bc/`` each hold ``config.py`` (the
algorithm keys), ``trainer.py``, ``runner.py`` (the algorithm's one training runner, which
runs on every execution backend) and, where the algorithm has them, ``events.py`` and its
losses. An algorithm folder imports only itself and the shared layer of maze-train (never
another algorithm folder; ``tools/check_imports.py`` enforces it): :mod:`maze.train.core`
(configs, epoch loop, checkpoints, the actor-critic loop), :mod:`maze.train.runners`,
:mod:`maze.train.backends`, :mod:`maze.train.distributed` and the other shared modules.

This package re-exports the A2C/PPO trainers and the shared config and model-selection classes.
"""

from maze.train.core import AlgorithmConfig, BestModelSelection, ModelSelectionBase
from maze.train.core.actor_critic.trainer import ActorCritic, TrainingResult
from maze.train.trainers.a2c import A2C, A2CAlgorithmConfig
from maze.train.trainers.ppo import PPO, PPOAlgorithmConfig

__all__ = [
    "A2C",
    "A2CAlgorithmConfig",
    "ActorCritic",
    "AlgorithmConfig",
    "BestModelSelection",
    "ModelSelectionBase",
    "PPO",
    "PPOAlgorithmConfig",
    "TrainingResult",
]
