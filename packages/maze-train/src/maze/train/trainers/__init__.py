"""The trainers: one folder per algorithm, holding its config, trainer, events, losses and runners.

Layout (the placement rule of the architecture: an algorithm's training runners live beside
its trainer; :mod:`maze.train.runners` holds only the pieces all runners share, i.e. the base
``TrainingRunner``, env factories and env placement, run directories, CPU threads and graphs):

* ``common/``: what every trainer shares: the ``AlgorithmConfig`` base and its validation,
  the epoch loop, resumable training state and best-model selection.
* ``actor_critic/``: the synchronous actor-critic loop of A2C and PPO (trainer, batches,
  config, events) and their runners ``actor_critic_runners.ACDevRunner`` /
  ``ACLocalRunner`` (``a2c-dev``, ``ppo-local``, ...). The two algorithms themselves are the
  modules ``a2c.py`` and ``ppo.py`` beside it, each a subclass of the shared loop.
* ``impala/``: the IMPALA learner, config, events, V-trace and ``impala_runners``.
* ``sac/``: SAC and SACfD (trainer, twin Q networks, losses, demonstrations, ``sac_runners``).
* ``es/``: evolution strategies (trainer, noise table, optimizers, rollouts, ``es_runners``).
* ``imitation/``: behavioural cloning (trainer, loss, validation, ``bc_runners``).

The ``_target_`` of each ``algorithm_runner`` config names the runner module in its
algorithm's folder; the runner paths of earlier releases (``maze.train.runners.ACDevRunner``, ...)
still resolve through :mod:`maze.env.utils.compat_aliases`. This package re-exports the A2C/PPO
trainers and the shared config and model-selection classes.
"""

from maze.train.trainers.a2c import A2C, A2CAlgorithmConfig
from maze.train.trainers.actor_critic.trainer import ActorCritic, TrainingResult
from maze.train.trainers.common import AlgorithmConfig, BestModelSelection, ModelSelectionBase
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
