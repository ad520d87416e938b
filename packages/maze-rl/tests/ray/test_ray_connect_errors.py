"""``runner.ray_address`` that cannot be used: one ``Error:`` line naming the cause, within seconds; ``auto`` says what it joined."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from run_output import maze_run

RANDOM_ROLLOUT = ("env.name=CartPole-v1", "policy=random_policy", "runner=ray", "runner.n_episodes=1")
"""One episode of a random policy on Ray actors: a job of seconds once it is connected."""

SECONDS_WITHOUT_PROBE = 60
"""``ray.init`` alone waits at least this long where nothing listens (the run must end well before)."""


def free_port() -> int:
    """A loopback port where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("scheme", ["ray://", ""])
def test_an_address_where_nothing_listens_is_one_error_line_within_seconds(scheme: str, tmp_path: Path) -> None:
    address = f"{scheme}127.0.0.1:{free_port()}"
    started = time.monotonic()
    result = maze_run("conf_rollout", (*RANDOM_ROLLOUT, f"runner.ray_address='{address}'"), tmp_path)
    seconds = time.monotonic() - started

    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [
        f"Error: runner=ray could not connect to Ray at '{address}': nothing answers at {address} (Connection "
        "refused); check runner.ray_address (or RAY_ADDRESS) and runner.ray_init"
    ], result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert seconds < SECONDS_WITHOUT_PROBE, seconds  # the start-up of maze-run and Ray's import, not Ray's retries


@pytest.fixture
def token_cluster(ray_local: Any) -> str:
    """The address of the session's Ray, which uses token authentication (a local ``ray.init()``'s default)."""
    if os.environ.get("RAY_AUTH_MODE") != "token":  # ray.init sets it in this process when it enabled tokens
        pytest.skip("the session's Ray runs without token authentication (RAY_AUTH_MODE set otherwise)")
    return ray_local.get_runtime_context().gcs_address


def test_auto_says_which_cluster_it_joined_that_the_run_did_not_start(token_cluster: str, tmp_path: Path) -> None:
    overrides = (*RANDOM_ROLLOUT, "runner.ray_address=auto")  # auto finds RAY_ADDRESS: the session's Ray
    result = maze_run("conf_rollout", overrides, tmp_path, RAY_ADDRESS=token_cluster, RAY_AUTH_MODE="token")

    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    address = token_cluster
    assert (
        f"runner.ray_address=auto joined the running Ray cluster at {address}, which this run did not start; leave "
        "runner.ray_address unset (null) to start a Ray of its own"
    ) in result.stdout


def test_a_cluster_that_refuses_the_token_is_one_error_line_naming_token_authentication(
    token_cluster: str, tmp_path: Path
) -> None:
    # without RAY_AUTH_MODE=token the job presents no token (Ray's own message: a failed connection after ~20 s)
    result = maze_run("conf_rollout", (*RANDOM_ROLLOUT, f"runner.ray_address={token_cluster}"), tmp_path)

    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.stderr[-3000:]
    assert errors[0].startswith(
        f"Error: runner=ray could not connect to Ray at '{token_cluster}': the cluster uses Ray's token authentication"
    )
    assert "RAY_AUTH_MODE=token" in errors[0] and "Traceback" not in result.stderr
