"""maze-train's aliases for old ``_target_`` paths (see :mod:`maze.env.utils.compat_aliases`).

Registered under the entry point group ``maze.compat_aliases``; imports nothing (not torch).
"""

from __future__ import annotations

__all__ = ["ALIASES"]

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
    "maze.train.runners.ACDevRunner": "maze.train.runners.legacy_names.ACDevRunner",
    "maze.train.runners.ACLocalRunner": "maze.train.runners.legacy_names.ACLocalRunner",
    "maze.train.runners.ImpalaDevRunner": "maze.train.runners.legacy_names.ImpalaDevRunner",
    "maze.train.runners.ImpalaLocalRunner": "maze.train.runners.legacy_names.ImpalaLocalRunner",
}
"""Old path -> the path of maze-train's class."""
