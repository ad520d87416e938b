"""The runner classes of earlier releases, one per algorithm and backend, kept as deprecated aliases.

Configs saved by earlier runs name them (``_target_: ...ACDevRunner``, ``ESLocalRunner``, ...);
each name now builds its algorithm's runner with the backend it stood for and warns once that
the config can move to the algorithm's runner (``algorithm_runner/<algorithm>.yaml``) and
``runner=dev|local|ray``. ``maze.train.compat_aliases`` maps the old module paths here.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional

from maze.env.utils.factory import resolve_target

__all__ = ["LEGACY_RUNNERS", "legacy_runner"]

_AC = "maze.train.runners.actor_critic_runner.ActorCriticRunner"
_IMPALA = "maze.train.trainers.impala.runner.ImpalaRunner"
_SAC = "maze.train.trainers.sac.runner.SACRunner"
_ES = "maze.train.trainers.es.runner.ESRunner"
_BC = "maze.train.trainers.bc.runner.BCRunner"

LEGACY_RUNNERS: dict[str, tuple[str, Optional[str]]] = {
    "ACDevRunner": (_AC, "dev"),
    "ACLocalRunner": (_AC, "local"),
    "ACRayRunner": (_AC, "ray"),
    "ImpalaDevRunner": (_IMPALA, "dev"),
    "ImpalaLocalRunner": (_IMPALA, "local"),
    "ImpalaRayRunner": (_IMPALA, "ray"),
    "SACDevRunner": (_SAC, None),
    "SACRayRunner": (_SAC, "ray"),
    "ESDevRunner": (_ES, "dev"),
    "ESLocalRunner": (_ES, "local"),
    "ESRayRunner": (_ES, "ray"),
    "BCDevRunner": (_BC, "dev"),
    "BCLocalRunner": (_BC, "local"),
}
"""Old runner name -> (the runner that replaces it, its backend; None: ``worker_processes`` decides, as it did)."""

_warned: set[str] = set()


def legacy_runner(name: str) -> Callable[..., Any]:
    """A callable building the runner that replaces the old runner ``name`` from that runner's arguments.

    Raises:
        AttributeError: For a name that was no runner.
    """
    if name not in LEGACY_RUNNERS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    runner_path, backend = LEGACY_RUNNERS[name]

    def build(*args: Any, worker_processes: bool = False, **kwargs: Any) -> Any:
        chosen = backend or ("local" if worker_processes else "dev")
        if name not in _warned:
            _warned.add(name)
            warnings.warn(
                f"runner {name} is the name of an earlier release; it is {runner_path.rsplit('.', 1)[-1]} with "
                f"runner={chosen} now (the runner config of algorithm_runner/<algorithm>.yaml and the runner= option)",
                FutureWarning,
                stacklevel=2,
            )
        return resolve_target(runner_path)(*args, backend=chosen, **kwargs)

    build.__name__ = build.__qualname__ = name
    return build


def __getattr__(name: str) -> Callable[..., Any]:
    return legacy_runner(name)
