"""Naming why ``ray.init`` could not connect, from Ray's own error and log texts (no running Ray needed)."""

from __future__ import annotations

import logging
import socket

import pytest
from maze.rollout.ray_connection import (
    TOKEN_AUTH_HINT,
    connection_failure,
    endpoint,
    recorded_ray_log,
    resolve_auto,
    unreachable,
)

GCS_REFUSAL = (
    "Failed to connect to GCS. Last connection error: Traceback (most recent call last): ... "
    "ray.exceptions.AuthenticationError: RPC error: InvalidAuthToken: Authentication token is missing or incorrect. "
    "Note: RAY_AUTH_MODE is currently 'disabled' (not 'token')."
)
"""Ray 2.60's error under ``ConnectionError("Failed to connect to Ray cluster at ...")`` for a refused token."""

CLIENT_REFUSAL = "Received when checking init: Invalid or missing authentication token"
"""The debug record of Ray's client (``ray://``) when the cluster refuses the token; it then times out."""


def gcs_connection_error(cause: str) -> ConnectionError:
    """A ``ConnectionError`` raised from a ``RuntimeError`` as ``ray.init`` raises it for a cluster address."""
    try:
        try:
            raise RuntimeError(cause)
        except RuntimeError as error:
            raise ConnectionError("Failed to connect to Ray cluster at 127.0.0.1:6379") from error
    except ConnectionError as error:
        return error


def test_a_refused_token_is_named_from_the_error_chain_or_from_the_client_log() -> None:
    assert connection_failure("127.0.0.1:6379", gcs_connection_error(GCS_REFUSAL), []) == TOKEN_AUTH_HINT
    timeout = ConnectionError("ray client connection timeout")
    assert connection_failure("ray://head:10001", timeout, ["Pinging server.", CLIENT_REFUSAL]) == TOKEN_AUTH_HINT
    assert "RAY_AUTH_TOKEN=<token>" in TOKEN_AUTH_HINT and "RAY_AUTH_MODE=disabled" in TOKEN_AUTH_HINT


def test_other_failures_keep_rays_error_and_a_client_one_asks_for_the_client_server() -> None:
    cause = connection_failure("127.0.0.1:6379", gcs_connection_error("Timed out while waiting for GCS"), [])
    assert cause == "ConnectionError: Failed to connect to Ray cluster at 127.0.0.1:6379"
    client = connection_failure("ray://head:10001", ConnectionError("ray client connection timeout"), ["Pinging."])
    assert client.startswith("ConnectionError: ray client connection timeout; is the head node's Ray client server")


def test_cluster_addresses_have_an_endpoint_and_auto_or_local_have_none() -> None:
    assert endpoint("ray://head:10001") == ("head", 10001)
    assert endpoint("10.0.0.5:6379") == ("10.0.0.5", 6379)
    assert endpoint("[::1]:6379") == ("::1", 6379)
    assert endpoint("auto") is None and endpoint("local") is None


def test_an_address_where_nothing_listens_is_unreachable_and_one_that_accepts_is_not() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert unreachable(f"ray://127.0.0.1:{port}") is None
    assert unreachable(f"127.0.0.1:{port}") == "Connection refused"
    assert unreachable("auto") is None


def test_rays_client_log_is_recorded_without_printing_its_debug_records(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("ray.util.client.worker")
    level = logger.level
    with caplog.at_level(logging.INFO), recorded_ray_log() as log:
        logger.debug(CLIENT_REFUSAL)
        logger.warning("Ray Client connection timed out")
    assert log == [CLIENT_REFUSAL, "Ray Client connection timed out"]
    assert [record.getMessage() for record in caplog.records] == ["Ray Client connection timed out"]
    assert logger.level == level and not logger.filters


def test_auto_stands_for_ray_address_where_it_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAY_ADDRESS", "ray://head:10001")
    assert resolve_auto() == "ray://head:10001"
