"""maze-train's aliases for old ``_target_`` paths (see :mod:`maze.env.utils.compat_aliases`).

Registered under the entry point group ``maze.compat_aliases``; imports nothing (not torch).
"""

from __future__ import annotations

__all__ = ["ALIASES"]

_EARLIER_RUNNER_MODULES: dict[str, tuple[str, ...]] = {
    "maze.train.runners": ("ACDevRunner", "ACLocalRunner", "ImpalaDevRunner", "ImpalaLocalRunner"),
    "maze.train.trainers.actor_critic.actor_critic_runners": ("ACDevRunner", "ACLocalRunner"),
    "maze.train.trainers.actor_critic.actor_critic_ray_runner": ("ACRayRunner",),
    "maze.train.trainers.impala.impala_runners": ("ImpalaDevRunner", "ImpalaLocalRunner"),
    "maze.train.trainers.impala.impala_ray_runner": ("ImpalaRayRunner",),
    "maze.train.trainers.sac.sac_runners": ("SACDevRunner",),
    "maze.train.trainers.sac.sac_ray_runner": ("SACRayRunner",),
    "maze.train.trainers.es": ("ESDevRunner", "ESLocalRunner"),
    "maze.train.trainers.es.es_runners": ("ESDevRunner", "ESLocalRunner"),
    "maze.train.trainers.es.es_ray_runner": ("ESRayRunner",),
    "maze.train.trainers.imitation": ("BCDevRunner", "BCLocalRunner"),
    "maze.train.trainers.imitation.bc_runners": ("BCDevRunner", "BCLocalRunner"),
}
"""Module -> the runner classes it held in an earlier release (one class per algorithm and backend)."""

ALIASES: dict[str, str] = {
    # the original framework's documented paths
    "maze.train.trainers.common.evaluators.rollout_evaluator.RolloutEvaluator": "maze.train.evaluators.RolloutEvaluator",
    "maze.utils.log_stats_utils.setup_logging": "maze.train.logging_setup.setup_logging",
    "maze.core.rollout.rollout_generator.RolloutGenerator": "maze.train.rollout.generator.RolloutGenerator",
    "maze.train.trainers.a2c.a2c_trainer.A2C": "maze.train.trainers.a2c.A2C",
    "maze.train.trainers.a2c.a2c_algorithm_config.A2CAlgorithmConfig": "maze.train.trainers.a2c.A2CAlgorithmConfig",
    "maze.train.trainers.common.model_selection.best_model_selection.BestModelSelection": (
        "maze.train.core.model_selection.BestModelSelection"
    ),
    # maze's own runner paths of earlier releases (configs of earlier runs): the deprecated runner names
    **{
        f"{module}.{name}": f"maze.train.runners.legacy_names.{name}"
        for module, names in _EARLIER_RUNNER_MODULES.items()
        for name in names
    },
    # trainer paths of earlier releases, as earlier runs' configs name them (runner.trainer_class)
    "maze.train.trainers.imitation.BCTrainer": "maze.train.trainers.bc.BCTrainer",
    "maze.train.trainers.imitation.bc_trainer.BCTrainer": "maze.train.trainers.bc.BCTrainer",
    "maze.train.trainers.sac.sac_trainer.SAC": "maze.train.trainers.sac.SAC",
    "maze.train.trainers.es.es_trainer.ESTrainer": "maze.train.trainers.es.ESTrainer",
}
"""Old path -> the path of maze-train's class."""
