"""What the experiment trackers of a ``maze-run`` job get from Hydra: an early start, and the sweep it belongs to.

For a job whose ``logger`` names a tracker (``logger=mlflow``, ``logger=wandb``):

* its tracking processes start before the runner imports torch, so the tracking library's
  import overlaps with the job's start-up (:func:`maze.train.tracking.setup.prestart_tracking`);
* a job of ``--multirun`` gets ``logger.sweep``: the sweep directory, its job number and its
  command-line overrides. The trackers (:mod:`maze.train.tracking`) make it one run under the
  sweep's parent run (MLflow) or in the sweep's group (W&B), so the jobs of a sweep are
  compared side by side.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf, open_dict

__all__ = ["prepare_tracking"]


def prepare_tracking(cfg: DictConfig, hydra_config: Any) -> None:
    """Starts the tracking processes of a job whose ``logger`` names a tracker; tells a sweep job its sweep.

    Args:
        cfg: The resolved job config; a sweep job's ``logger.sweep`` is set in place.
        hydra_config: The job's Hydra config (``HydraConfig.get()``).
    """
    logger = cfg.get("logger")
    if not isinstance(logger, DictConfig) or not logger:
        return
    from hydra.types import RunMode
    from maze.train.tracking.setup import prestart_tracking

    if hydra_config.mode == RunMode.MULTIRUN:
        sweep_dir = os.path.abspath(os.path.join(hydra_config.runtime.cwd, str(hydra_config.sweep.dir)))
        with open_dict(logger):
            logger.sweep = {
                "dir": sweep_dir,
                "job": int(hydra_config.job.num),
                "overrides": list(hydra_config.overrides.task),
            }
    prestart_tracking({"logger": OmegaConf.to_container(logger, resolve=True)}, Path.cwd())
