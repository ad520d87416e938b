"""Execution backends: where a training run's envs step and its policies act (see :mod:`.base`).

The ``runner=`` config group names the backend in its ``backend`` key, and the runner of
the algorithm builds it with :func:`build_backend` from the runner keys its class takes:

* ``dev``: :class:`~maze.train.backends.in_process.InProcessBackend`;
* ``local``: :class:`~maze.train.backends.processes.SubprocessBackend` (``start_method``);
* ``ray``: :class:`~maze.train.backends.ray.RayBackend` (``ray_address``, ``ray_init``,
  ``runtime_env``, ``max_restarts``, ``num_cpus_per_actor``, ``env_actors``, ``restart_timeout_s``,
  ``start_method``).

A dotted path names a backend of your own. The modules are imported on first use: ``runner=dev``
never imports Ray.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import resolve_target
from maze.train.core.config import validate_target_config

__all__ = ["BACKENDS", "build_backend"]

BACKENDS = {
    "dev": "maze.train.backends.in_process.InProcessBackend",
    "local": "maze.train.backends.processes.SubprocessBackend",
    "ray": "maze.train.backends.ray.RayBackend",
}
"""The backends of the ``runner`` options shipped with maze."""


def build_backend(backend: Any, options: Mapping[str, Any], runner: str) -> Any:
    """The backend ``backend`` (a name of :data:`BACKENDS`, a dotted path, or a built backend) with its runner keys.

    Args:
        backend: ``dev``, ``local``, ``ray``, the dotted path of an
            :class:`~maze.train.backends.base.ExecutionBackend` subclass, or a backend instance
            (``options`` must then be empty).
        options: The runner keys neither the runner nor its algorithm takes (e.g. ``ray_address``).
        runner: The runner class name, for messages.

    Raises:
        ConfigurationError: Naming the ``runner.<key>`` that neither the runner nor the backend
            takes, or a key outside its range.
    """
    from maze.train.backends.base import ExecutionBackend

    if isinstance(backend, ExecutionBackend):
        _reject_unknown(options, (), runner, type(backend).__name__)
        return backend
    backend_class = resolve_target(BACKENDS.get(str(backend), str(backend)))
    if not (isinstance(backend_class, type) and issubclass(backend_class, ExecutionBackend)):
        raise ConfigurationError(
            f"runner.backend={backend!r} is no execution backend; use one of {', '.join(BACKENDS)} or the dotted path "
            "of an ExecutionBackend subclass"
        )
    accepted = _parameters(backend_class)
    _reject_unknown(options, accepted, runner, backend_class.__name__)
    validate_target_config({"_target_": backend_class, **options}, "runner")
    return backend_class(**options)


def _parameters(backend_class: type) -> tuple[str, ...]:
    """The keyword arguments of a backend class's ``__init__``."""
    import inspect

    signature = inspect.signature(backend_class.__init__)
    return tuple(name for name in signature.parameters if name != "self")


def _reject_unknown(options: Mapping[str, Any], accepted: tuple[str, ...], runner: str, backend: str) -> None:
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        allowed = f"; {backend} takes {', '.join(accepted)}" if accepted else f"; {backend} takes none"
        raise ConfigurationError(
            f"runner.{unknown[0]} is a key of neither the runner ({runner}) nor its backend ({backend}){allowed}. "
            "Remove it, or pick the runner option that has it (e.g. runner=ray for ray_address)"
        )
