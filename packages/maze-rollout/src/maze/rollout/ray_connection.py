"""Why ``ray.init`` could not connect, in one line: nothing answers, token authentication, or ``auto``'s find.

Ray reports some causes only in its own logs: a ``ray://`` client whose token the cluster refuses
retries for about 30 s and then says ``ray client connection timeout`` (the refusal is a debug
record of ``ray.util.client.worker``), and an address where nothing listens makes ``ray.init``
wait for a minute or more. :meth:`maze.rollout.ray_cluster.RayCluster.connected` therefore

* resolves ``auto`` itself (:func:`resolve_auto`, Ray's own look-up: ``RAY_ADDRESS``, the address the
  last ``ray start`` recorded, a running Ray of this machine), so the message can name the cluster;
* probes a cluster address with a short TCP connect first (:func:`unreachable`);
* records Ray's connection log while ``ray.init`` runs (:func:`recorded_ray_log`) and names the
  cause of a failure from it and the exception chain (:func:`connection_failure`).

Ray 2.60's token authentication: a cluster started with ``RAY_AUTH_MODE=token`` (the default of a
local ``ray.init()``) takes only processes that present its token; a process joining it by address
presents one only with ``RAY_AUTH_MODE=token`` set, from ``RAY_AUTH_TOKEN``, the file
``RAY_AUTH_TOKEN_PATH`` names, or ``~/.ray/auth_token``.
"""

from __future__ import annotations

import logging
import os
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Optional

__all__ = [
    "AUTO_ADDRESS",
    "PROBE_TIMEOUT_S",
    "RAY_ADDRESS_VARIABLE",
    "TOKEN_AUTH_HINT",
    "auto_notice",
    "connection_failure",
    "endpoint",
    "recorded_ray_log",
    "resolve_auto",
    "token_refused",
    "unreachable",
]

AUTO_ADDRESS = "auto"
"""``runner.ray_address`` that joins a running cluster found on this machine."""

PROBE_TIMEOUT_S = 5.0
"""Longest wait for a TCP connection to a cluster address before ``ray.init`` is tried."""

_CLIENT_PREFIX = "ray://"
"""The scheme of an address served by Ray's client server (on the head node, port 10001 by default)."""

RAY_ADDRESS_VARIABLE = "RAY_ADDRESS"
"""Environment variable with the address of the cluster to use when ``runner.ray_address`` is not set; it also
takes precedence over ``auto``'s look-up."""

TOKEN_AUTH_HINT = (
    "the cluster uses Ray's token authentication and refused this process (no token, or the wrong one): set "
    "RAY_AUTH_MODE=token and give it the cluster's token in RAY_AUTH_TOKEN=<token>, a file named by "
    "RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token (`ray get-auth-token` on the head node prints it), or start a trusted "
    "loopback-only cluster with RAY_AUTH_MODE=disabled"
)
"""What to do when a cluster refuses the token (see the module docs)."""

_TOKEN_REFUSALS = ("authentication token", "invalidauthtoken", "authenticationerror", "unauthenticated")
"""Fragments (lower case) of Ray's messages when a cluster refuses a missing or wrong token."""

_CLIENT_LOGGER = "ray.util.client.worker"
"""The logger of Ray's client connection (``ray://``), recorded while ``ray.init`` runs."""

_SHOWN_REASONS = 300
"""Longest part of Ray's own error text that a message quotes."""


def endpoint(address: str) -> Optional[tuple[str, int]]:
    """Host and port of a cluster address (``ray://host:port`` or ``host:port``); None for ``auto``, ``local`` and others."""
    match = re.fullmatch(r"(?:ray://)?\[?([^\[\]/]+?)\]?:(\d+)/?", address)
    return (match.group(1), int(match.group(2))) if match else None


def unreachable(address: str, timeout: float = PROBE_TIMEOUT_S) -> Optional[str]:
    """Why nothing answers at a cluster address (e.g. ``Connection refused``); None when a server accepts, or no host:port."""
    where = endpoint(address)
    if where is None:
        return None
    try:
        with socket.create_connection(where, timeout=timeout):
            return None
    except OSError as error:
        return (error.strerror or type(error).__name__) if not isinstance(error, socket.timeout) else "timed out"


def resolve_auto() -> str:
    """The cluster address ``auto`` stands for, found as ``ray.init`` would find it.

    ``RAY_ADDRESS`` first (any address, ``ray://`` included), else Ray's own look-up: the address
    the last ``ray start`` recorded, else a running Ray of this machine.

    Raises:
        ConnectionError: No running Ray was found.
    """
    if os.environ.get(RAY_ADDRESS_VARIABLE):
        return os.environ[RAY_ADDRESS_VARIABLE]
    from ray._private.services import canonicalize_bootstrap_address

    address = canonicalize_bootstrap_address(AUTO_ADDRESS)
    if address is None:
        raise ConnectionError("no running Ray instance found")
    return address


def auto_notice(address: str) -> str:
    """The line that says ``auto`` joined a cluster this run did not start."""
    return (
        f"runner.ray_address=auto joined the running Ray cluster at {address}, which this run did not start; "
        "leave runner.ray_address unset (null) to start a Ray of its own"
    )


@contextmanager
def recorded_ray_log() -> Iterator[list[str]]:
    """Records the messages of Ray's client connection logger (debug ones included) while the block runs.

    What Ray prints stays as it was: the debug records are recorded without being printed.
    """
    records: list[str] = []
    logger = logging.getLogger(_CLIENT_LOGGER)
    level, recorder = logger.level, _Recorder(records, logger.getEffectiveLevel())
    logger.addFilter(recorder)
    logger.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        logger.removeFilter(recorder)
        logger.setLevel(level)


class _Recorder(logging.Filter):
    """Records every message of its logger; lets through only those at ``shown_from`` or above (as before).

    Args:
        records: Where the messages go.
        shown_from: The level from which its logger showed records before the recording.
    """

    def __init__(self, records: list[str], shown_from: int) -> None:
        super().__init__()
        self.records = records
        self.shown_from = shown_from

    def filter(self, record: logging.LogRecord) -> bool:
        """Records the message; True (shown) when its level was shown before the recording."""
        self.records.append(record.getMessage())
        return record.levelno >= self.shown_from


def token_refused(texts: list[str]) -> bool:
    """Whether Ray's messages say that the cluster refused a missing or wrong authentication token."""
    return any(fragment in text.lower() for text in texts for fragment in _TOKEN_REFUSALS)


def connection_failure(address: str, error: BaseException, log: list[str]) -> str:
    """The cause of a failed ``ray.init`` at ``address``: token authentication, else Ray's own error.

    Args:
        address: The address ``ray.init`` got.
        error: What ``ray.init`` raised.
        log: Ray's connection log meanwhile (see :func:`recorded_ray_log`).
    """
    texts = [*_chain(error), *log]
    if token_refused(texts):
        return TOKEN_AUTH_HINT
    reason = f"{type(error).__name__}: {' '.join(str(error).split())}"
    if len(reason) > _SHOWN_REASONS:
        reason = reason[: _SHOWN_REASONS - 3] + "..."
    if address.startswith(_CLIENT_PREFIX):
        reason += (
            "; is the head node's Ray client server (ray start --head, port 10001 by default) reachable from here?"
        )
    return reason


def _chain(error: Optional[BaseException]) -> Iterator[str]:
    """The texts of ``error`` and of the errors that caused it."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield f"{type(error).__name__}: {error}"
        error = error.__cause__ or error.__context__
