"""The Ray keys shared by every training runner of ``runner=ray`` (``algorithm_runner/<algorithm>-ray.yaml``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, NoReturn, Optional

from maze.env.errors import ConfigurationError
from maze.rollout.ray_cluster import RayCluster
from maze.train.bounds import Bounds

__all__ = ["RAY_TRAIN_EXTRA", "RayTrainingRunnerMixin", "no_ray_runner"]

RAY_TRAIN_EXTRA = "maze-train[ray]"
"""The extra that installs Ray for the training runners."""


class RayTrainingRunnerMixin:
    """Reads the ``runner=ray`` keys into :attr:`ray_cluster`; put it first among a Ray runner's bases.

    Ray is imported when the runner is built, so a missing extra fails before anything else
    with one line naming ``maze-train[ray]``.

    Args:
        ray_address: Cluster to use (None: ``RAY_ADDRESS``, else a local Ray; see :mod:`maze.rollout.ray_cluster`).
        ray_init: Further ``ray.init`` arguments.
        runtime_env: Ray runtime environment of the actors (``working_dir``/``py_modules``: your own modules).
        max_restarts: Restarts of each actor whose process or node died before the run stops.
        num_cpus_per_actor: CPUs Ray reserves for each actor.
        **kwargs: The arguments of the runner the mixin is combined with.
    """

    def __init__(
        self,
        *args: Any,
        ray_address: Optional[str] = None,
        ray_init: Optional[Mapping[str, Any]] = None,
        runtime_env: Optional[Mapping[str, Any]] = None,
        max_restarts: Annotated[int, Bounds(ge=0)] = 3,
        num_cpus_per_actor: Annotated[float, Bounds(gt=0)] = 1,
        **kwargs: Any,
    ) -> None:
        self.ray_cluster = RayCluster(
            ray_address, ray_init or {}, runtime_env, max_restarts, component="runner=ray", extra=RAY_TRAIN_EXTRA
        )
        self.ray_cluster.require_ray()
        self.num_cpus_per_actor = num_cpus_per_actor
        super().__init__(*args, **kwargs)


def no_ray_runner(**_: Any) -> NoReturn:
    """The ``_target_`` of ``runner/ray.yaml`` that an algorithm's (or the rollouts') Ray runner replaces.

    Raises:
        ConfigurationError: Always: the job has no Ray runner.
    """
    raise ConfigurationError(
        "runner=ray has no Ray runner for this job: Ray runs rollouts (conf_rollout) and trains the algorithms that "
        "have an algorithm_runner/<algorithm>-ray.yaml in maze.conf (algorithm=a2c, ppo, impala, sac and es); use "
        "runner=local or runner=dev for the others (e.g. bc, sacfd)"
    )
