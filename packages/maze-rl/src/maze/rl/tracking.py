"""What the experiment trackers of a ``maze-run`` job learn from Hydra: the sweep a job belongs to.

A job of ``--multirun`` with a tracking logger (``logger=mlflow``, ``logger=wandb``) gets
``logger.sweep``: the sweep directory, its job number and its command-line overrides. The
trackers (:mod:`maze.train.tracking`) make it one run under the sweep's parent run (MLflow)
or in the sweep's group (W&B), so the jobs of a sweep are compared side by side.
"""

from __future__ import annotations

import os
from typing import Any

from omegaconf import DictConfig, open_dict

__all__ = ["add_sweep_context"]


def add_sweep_context(cfg: DictConfig, hydra_config: Any) -> None:
    """Sets ``cfg.logger.sweep`` for a sweep job whose ``logger`` names a tracker (nothing otherwise).

    Args:
        cfg: The job config; changed in place.
        hydra_config: The job's Hydra config (``HydraConfig.get()``).
    """
    from hydra.types import RunMode

    logger = cfg.get("logger")
    if hydra_config.mode != RunMode.MULTIRUN or not isinstance(logger, DictConfig) or not logger:
        return
    sweep_dir = os.path.abspath(os.path.join(hydra_config.runtime.cwd, str(hydra_config.sweep.dir)))
    with open_dict(logger):
        logger.sweep = {
            "dir": sweep_dir,
            "job": int(hydra_config.job.num),
            "overrides": list(hydra_config.overrides.task),
        }
