"""Idle episodes expire: a service with a one-second idle timeout."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import serve

IDLE_TIMEOUT_S = 1.0
STATE = {"observation": [0.0, 0.0, 0.0, 0.0]}


@pytest.fixture(scope="module")
def client(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    for service in serve(model_dir, tmp_path_factory.mktemp("expiry"), "--idle-timeout", str(IDLE_TIMEOUT_S)):
        with httpx.Client(base_url=service.url, timeout=30) as client:
            yield client


def test_an_idle_episode_expires_and_answers_410(client: httpx.Client) -> None:
    idle = client.post("/episodes").json()["episode_id"]
    assert client.post(f"/episodes/{idle}/act", json=STATE).status_code == 200
    time.sleep(2.5 * IDLE_TIMEOUT_S)
    metrics = client.get("/metrics").json()
    assert metrics["open_episodes"] == 0 and metrics["episodes"]["expired"] == 1  # the sweeper ended it
    response = client.post(f"/episodes/{idle}/act", json=STATE)
    assert response.status_code == 410 and response.json()["field"] == "episode_id"
    assert "expired after 1 s without a request" in response.json()["error"]


def test_requests_keep_an_episode_open(client: httpx.Client) -> None:
    busy = client.post("/episodes").json()["episode_id"]
    for _ in range(12):  # 2.4 s in all, well past the timeout, never idle for long
        assert client.post(f"/episodes/{busy}/act", json=STATE).status_code == 200
        time.sleep(0.2 * IDLE_TIMEOUT_S)
    assert client.post(f"/episodes/{busy}/close", json=STATE).json()["outcome"] == "closed"
