"""The one way every maze Ray runner reaches Ray: import it lazily, connect to (or start) it, configure actors.

Ray is an optional extra (``maze-rollout[ray]``, ``maze-train[ray]``): nothing here imports
it at module level, and :func:`import_ray` turns its absence into one
:class:`RayNotInstalledError` line that names the extra to install.

:class:`RayCluster` holds the ``runner`` keys shared by all Ray runners and
:meth:`RayCluster.connected` is the only place that calls ``ray.init``::

    cluster = RayCluster(address=None, init={}, runtime_env=None, max_restarts=3)
    with cluster.connected() as ray:
        Actor = ray.remote(MyActor).options(**cluster.actor_options(num_cpus=1))

* ``address`` (``runner.ray_address``): a cluster address (``ray://head:10001``, ``auto``,
  ``head:6379``); None: the ``RAY_ADDRESS`` environment variable, else a local Ray started
  with this machine's CPUs (and without dashboard), shut down again when the block ends.
* A process that is already connected (``ray.init`` called by the user, a notebook or a
  test fixture) keeps its connection: the block neither re-initializes nor shuts it down.
* A local Ray started here uses Ray's token authentication (set ``RAY_AUTH_MODE=disabled`` to opt
  out), as with a plain ``ray.init()``, without Ray's warning that it enabled it.
* ``init`` (``runner.ray_init``): further keyword arguments of ``ray.init``, e.g.
  ``{runtime_env: {working_dir: .}}`` or ``{num_cpus: 4}``.
* ``runtime_env`` (``runner.runtime_env``): Ray's runtime environment (``working_dir``,
  ``py_modules``, ``pip``, ``env_vars``): how a user's own env and policy modules reach cluster
  nodes that do not have them installed. It is the job's runtime environment when the runner
  connects (local directories are uploaded to the cluster then); in a process that is
  connected already, each actor of the runner gets it (Ray then takes only URIs of uploaded
  packages, not local directories: pass those to your own ``ray.init``).
* ``max_restarts`` (``runner.max_restarts``): how often Ray restarts each actor whose process
  (or node) died; the runner re-runs or discards the actor's unfinished work.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Optional

from maze.env.errors import ConfigurationError
from maze.env.utils.factory import to_plain_config
from maze.env.utils.install_hints import pip_install_command
from maze.rollout._validation import checked_int
from maze.rollout.log_notices import dropped_log_notice
from maze.rollout.ray_connection import (
    AUTO_ADDRESS,
    RAY_ADDRESS_VARIABLE,
    auto_notice,
    connection_failure,
    recorded_ray_log,
    resolve_auto,
    unreachable,
)

logger = logging.getLogger(__name__)

__all__ = [
    "RAY_ADDRESS_VARIABLE",
    "RAY_EXTRA",
    "ActorRestarts",
    "RayCluster",
    "RayNotInstalledError",
    "actor_start_failure",
    "alive_nodes",
    "cpu_capacity",
    "import_ray",
    "new_incarnation",
    "node_id",
]

RAY_EXTRA = "maze-rollout[ray]"
"""The extra that installs Ray for the rollout runner (training runners name ``maze-train[ray]``)."""

RAY_AUTH_LOGGER = "ray._private.authentication.authentication_token_setup"
"""Ray's logger of the token authentication set-up."""

RAY_AUTH_NOTICE = "Token authentication is enabled for this Ray cluster"
"""Ray's warning when a new local Ray enables token authentication by default (dropped: see :meth:`RayCluster.connected`)."""

LOCAL_ADDRESS = "local"
"""``ray.init`` address that starts a new local Ray."""

RESTART_POLL_SECONDS = 0.1
"""Pause before asking an actor again that Ray is restarting."""

_LOCAL_DEFAULTS: dict[str, Any] = {"include_dashboard": False}
"""``ray.init`` arguments of a local Ray (the dashboard costs seconds of start-up and a core's share)."""


class RayNotInstalledError(ConfigurationError):
    """A Ray runner was chosen, but Ray is not installed (the message names the extra)."""


def import_ray(component: str, extra: str = RAY_EXTRA) -> ModuleType:
    """Imports and returns the ``ray`` module.

    Args:
        component: What needs Ray, for the message (e.g. ``runner=ray``).
        extra: The pip extra that installs it.

    Raises:
        RayNotInstalledError: One line naming the extra, when Ray cannot be imported.
    """
    try:
        import ray
    except ImportError:
        raise RayNotInstalledError(
            f"{component} needs Ray, which is not installed here: {pip_install_command(extra)}"
        ) from None
    return ray


def actor_start_failure(what: str, error: Exception) -> str:
    """The message for an actor that could not be built (Ray does not restart it), e.g. a module missing on its node.

    Args:
        what: The actor, e.g. ``Actor 1``.
        error: Ray's error (its text holds the actor's traceback).
    """
    return (
        f"{what} could not be started on its Ray node; the run stopped. If the traceback below names a module of "
        f"yours that the node lacks, ship it with runner.runtime_env (py_modules or working_dir).\n{error}"
    )


def cpu_capacity(ray: ModuleType, num_cpus: float) -> str:
    """What an actor needs and what the cluster has free, e.g. ``each needs 1 CPU; the cluster has 0 of 2 CPUs free``.

    Args:
        ray: The connected ``ray`` module.
        num_cpus: The CPUs Ray reserves for the actor.
    """
    free = ray.available_resources().get("CPU", 0.0)
    total = ray.cluster_resources().get("CPU", 0.0)
    return f"each needs {num_cpus:g} CPU; the cluster has {free:g} of {total:g} CPUs free"


def alive_nodes(ray: ModuleType) -> set[str]:
    """The ids of the cluster's live nodes (a node removed or lost is dead once Ray has noticed)."""
    return {node["NodeID"] for node in ray.nodes() if node["Alive"]}


def node_id() -> str:
    """The id of the Ray node this process runs on (the driver's node in the driver)."""
    import ray

    return ray.get_runtime_context().get_node_id()


@dataclass
class RayCluster:
    """The Ray keys of a runner (see the module docs).

    Attributes:
        address: ``runner.ray_address``; None: ``RAY_ADDRESS``, else a new local Ray.
        init: ``runner.ray_init``: further ``ray.init`` arguments.
        runtime_env: ``runner.runtime_env``: the job's (or the actors') runtime environment (None: Ray's default).
        max_restarts: ``runner.max_restarts``: restarts of each actor before the run stops with an error.
        component: What uses Ray (for messages), e.g. ``runner=ray``.
        extra: The extra that installs Ray for it.

    Raises:
        ConfigurationError: For a ``max_restarts`` below 0 or ``init``/``runtime_env`` that are no mappings.
    """

    address: Optional[str] = None
    init: Mapping[str, Any] = field(default_factory=dict)
    runtime_env: Optional[Mapping[str, Any]] = None
    max_restarts: int = 3
    component: str = "runner=ray"
    extra: str = RAY_EXTRA
    _job_runtime_env: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        self.max_restarts = checked_int("max_restarts", self.max_restarts, minimum=0)
        self.init = dict(_mapping("ray_init", to_plain_config(self.init) or {}))
        if self.runtime_env is not None:
            self.runtime_env = dict(_mapping("runtime_env", to_plain_config(self.runtime_env)))
        if self.address is not None and not isinstance(self.address, str):
            raise ConfigurationError(f"runner.ray_address must be an address string or null, got {self.address!r}")

    def require_ray(self) -> ModuleType:
        """Imports Ray (see :func:`import_ray`): runners call it when built, so a missing extra fails first."""
        return import_ray(self.component, self.extra)

    def resolved_address(self) -> str:
        """The address ``ray.init`` gets: ``address``, else ``RAY_ADDRESS``, else ``local`` (a new local Ray)."""
        return self.address or os.environ.get(RAY_ADDRESS_VARIABLE) or LOCAL_ADDRESS

    def init_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``ray.init`` (a local Ray also gets this machine's CPUs, no dashboard)."""
        address = self.resolved_address()
        arguments: dict[str, Any] = {"address": address}
        if address == LOCAL_ADDRESS:
            arguments.update(_LOCAL_DEFAULTS, num_cpus=os.cpu_count() or 1)
        arguments.update(self.init)
        if self.runtime_env:
            arguments["runtime_env"] = {**arguments.get("runtime_env", {}), **self.runtime_env}
        return arguments

    @contextmanager
    def connected(self) -> Iterator[ModuleType]:
        """Connects to Ray for the block and yields the ``ray`` module.

        A process that is connected already stays connected and keeps its Ray; otherwise
        the block connects (starting a local Ray if no cluster is named) and disconnects at
        its end, which also stops a Ray it started, so no Ray process outlives the run.

        ``auto`` is resolved first and, like any cluster address, probed (see
        :mod:`maze.rollout.ray_connection`): a failure is one line naming its cause (nothing
        answers, the token, ``auto``'s find); joining a cluster through ``auto`` prints its address.

        Raises:
            RayNotInstalledError: Ray is not installed.
            ConfigurationError: ``ray.init`` refused the address or the arguments, or could not connect.
        """
        ray = self.require_ray()
        if ray.is_initialized():
            self._job_runtime_env = False
            yield ray
            return
        arguments = self.init_arguments()
        requested = arguments["address"]
        if requested == AUTO_ADDRESS:
            arguments["address"] = self._auto_address()
        self._job_runtime_env = True
        self._check_reachable(arguments["address"], requested)
        try:
            # A new local Ray enables token authentication (Ray's secure default, unless RAY_AUTH_MODE says otherwise)
            # and logs a warning that it did: a notice, not a problem, which every run starting a local Ray would print.
            with dropped_log_notice(RAY_AUTH_LOGGER, RAY_AUTH_NOTICE), recorded_ray_log() as log:
                ray.init(**arguments)
        except Exception as error:  # whatever Ray raises (ConnectionError, AuthenticationError, ...): one line
            cause = connection_failure(arguments["address"], error, log)
            raise ConfigurationError(self._cannot_connect(arguments["address"], requested, cause)) from None
        if requested == AUTO_ADDRESS:
            logger.info(auto_notice(arguments["address"]))
        try:
            yield ray
        finally:
            ray.shutdown()

    def _auto_address(self) -> str:
        """The cluster ``auto`` finds (see :func:`~maze.rollout.ray_connection.resolve_auto`).

        Raises:
            ConfigurationError: It finds none.
        """
        try:
            return resolve_auto()
        except (ConnectionError, ValueError) as error:
            raise ConfigurationError(
                f"{self.component}: runner.ray_address=auto found no running Ray cluster ({error}); name the cluster's "
                "address, or leave runner.ray_address unset (null) to start a local Ray"
            ) from None

    def _check_reachable(self, address: str, requested: str) -> None:
        """Fails at once, instead of after Ray's long retries, when nothing answers at a cluster address.

        Raises:
            ConfigurationError: Nothing accepted a connection within ``PROBE_TIMEOUT_S``.
        """
        problem = unreachable(address)
        if problem is not None:
            cause = f"nothing answers at {address} ({problem})"
            raise ConfigurationError(self._cannot_connect(address, requested, cause))

    def _cannot_connect(self, address: str, requested: str, cause: str) -> str:
        """The one-line message of a failed connection to ``address`` (``requested``: what the config said)."""
        if requested == AUTO_ADDRESS:
            where = f"the Ray cluster at {address}, which runner.ray_address=auto found and this run did not start"
            advice = "leave runner.ray_address unset (null) to start a Ray of this run's own, or name the cluster"
        else:
            where = f"Ray at {address!r}"
            advice = f"check runner.ray_address (or {RAY_ADDRESS_VARIABLE}) and runner.ray_init"
        return f"{self.component} could not connect to {where}: {cause}; {advice}"

    def actor_options(self, **options: Any) -> dict[str, Any]:
        """``ray.remote(...).options`` of an actor of this runner: restarts, runtime env and ``options``.

        The runtime environment goes to the actor only where it is not the job's (see the
        module docs). Calls are not retried by Ray (``max_task_retries=0``): the runner decides whether the
        unfinished work of a restarted actor is re-run or discarded, so nothing runs twice
        without it knowing.
        """
        arguments: dict[str, Any] = {"max_restarts": self.max_restarts, "max_task_retries": 0}
        if self.runtime_env and not self._job_runtime_env:
            arguments["runtime_env"] = dict(self.runtime_env)
        arguments.update(options)
        return arguments


def _mapping(key: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"runner.{key} must be a mapping of keyword arguments, got {value!r}")
    return value


def new_incarnation() -> str:
    """A fresh id for an actor instance: an actor sends it with every result, so that its restarts show."""
    return uuid.uuid4().hex


class ActorRestarts:
    """Counts the deaths (and so the restarts) of a runner's Ray actors; stops the run when one died too often.

    A death shows in one of three ways, and each death is counted once: a call fails because
    its actor died, the runner finds the actor's node dead (:meth:`node_lost`; a call that
    waits for the restarted actor does not fail), or (when no call was running) the actor's
    next result comes from a new instance. For the last, every actor tags its results with the
    id of its instance (:func:`new_incarnation`, drawn in its constructor). Calls are tagged with the actor's
    :meth:`generation` when submitted, so that the other calls failing with the same death do
    not count again, nor do calls that find the actor still restarting (``ActorUnavailableError``),
    while a call submitted afterwards that fails because the actor died (again, or for good
    when Ray gave up on it) is the next death.

    Args:
        max_restarts: ``runner.max_restarts``.
        error: Builds the run's error from its message (e.g. ``ActorFailedError``).
        name: The name of an actor in messages, from its index (e.g. ``lambda i: f"Actor {i}"``).
        lost: What happens to the unfinished work of a dead actor, for the message printed at a death.
    """

    def __init__(
        self, max_restarts: int, error: Callable[[str], Exception], name: Callable[[int], str], lost: str
    ) -> None:
        self.max_restarts = max_restarts
        self.error = error
        self.name = name
        self.lost = lost
        self.total = 0
        """Deaths (restarts) of all actors so far."""
        self._incarnations: dict[int, str] = {}
        self._deaths: dict[int, int] = {}
        self._generations: dict[int, int] = {}
        self._death_seen: set[int] = set()  # actors whose death a failed call showed; their next instance is expected

    def generation(self, actor: int) -> int:
        """The tag of a call submitted to ``actor`` now (see :meth:`failed`)."""
        return self._generations.get(actor, 0)

    def delivered(self, actor: int, incarnation: str, generation: Optional[int] = None) -> None:
        """Notes a result of ``actor`` from its instance ``incarnation``; a new instance after no failed call is a death.

        Args:
            actor: The actor.
            incarnation: The id of the instance that produced the result.
            generation: The tag of the call that delivered (None: not known). A call submitted
                before a death was seen can deliver what the lost instance finished before it
                died (e.g. before its node was lost): that says nothing about the restart.

        Raises:
            Exception: ``error(message)`` when the actor died more often than ``max_restarts``.
        """
        if generation is not None and generation != self.generation(actor):
            return  # produced before the death that was seen
        known = self._incarnations.setdefault(actor, incarnation)
        self._incarnations[actor] = incarnation
        if known != incarnation and actor not in self._death_seen:
            self._died(actor, "it died between two calls")
        self._death_seen.discard(actor)

    def failed(self, actor: int, generation: int, error: Exception) -> None:
        """Notes a call of ``actor``, submitted in ``generation``, that failed because its process or node died.

        Raises:
            Exception: ``error(message)`` when the actor died more often than ``max_restarts``.
        """
        if generation != self.generation(actor):
            return  # another call failed with the same death
        if actor in self._death_seen and _still_restarting(error):
            time.sleep(RESTART_POLL_SECONDS)  # a request sent while Ray restarts the actor: not another death
            return
        self._seen_dead(actor, type(error).__name__)

    def restarting(self, actor: int) -> bool:
        """Whether a death of ``actor`` was seen and no call submitted since has delivered."""
        return actor in self._death_seen

    def node_lost(self, actor: int) -> None:
        """Notes that the node of ``actor`` died (its calls submitted so far count as failed with it).

        Raises:
            Exception: ``error(message)`` when the actor died more often than ``max_restarts``.
        """
        self._seen_dead(actor, "its node was lost")

    def _seen_dead(self, actor: int, how: str) -> None:
        """Counts a death of ``actor`` seen now; its next instance is expected, its earlier calls' failures are not new."""
        self._generations[actor] = self.generation(actor) + 1
        self._death_seen.add(actor)
        self._died(actor, how)

    def _died(self, actor: int, how: str) -> None:
        """Counts a death of ``actor``; raises when it has no restart left."""
        deaths = self._deaths[actor] = self._deaths.get(actor, 0) + 1
        if deaths > self.max_restarts:
            raise self.error(
                f"{self.name(actor)} died {deaths} times, more than runner.max_restarts={self.max_restarts}; the run "
                f"stopped. Check the memory and logs of its node (ray logs, the Ray dashboard) and its env, or raise "
                f"runner.max_restarts. Last failure: {how}"
            )
        self.total += 1
        logger.warning(
            f"{self.name(actor)} died ({how}); Ray restarts it ({deaths} of runner.max_restarts={self.max_restarts}) "
            f"and {self.lost}"
        )


def _still_restarting(error: Exception) -> bool:
    """Whether Ray says the actor is only unavailable for now (being restarted), not dead again."""
    try:
        import ray.exceptions
    except ImportError:  # the error did not come from Ray
        return False
    unavailable = getattr(ray.exceptions, "ActorUnavailableError", None)
    return unavailable is not None and isinstance(error, unavailable)
