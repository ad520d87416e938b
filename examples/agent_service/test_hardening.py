"""One client can neither stall, starve nor read the service: body limit, token, per-client limits, health.

The module's service is configured through the environment, as a container would be: a bearer
token, at most 4 requests in progress per client, at most 60 open episodes (25 per client), and
the default 1 MiB body limit. Each client is a loopback address of its own (127.0.0.x).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import httpx
import numpy as np
import pytest
from agent_service.client import ServiceClient
from agent_service.process import ServiceProcess
from conftest import serve
from hostile import (
    INFO_STRING,
    MANY_VALUES,
    OBSERVATION_LIST,
    chunked,
    huge_body,
    open_connection,
    open_many,
    request_head,
    send_raw,
)

TOKEN = "a-token-for-the-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
MAX_CLIENT_REQUESTS = 4
MAX_OPEN_EPISODES = 60
MAX_CLIENT_EPISODES = 25
LIMIT = 1 << 20
"""The default body limit (1 MiB)."""
Result = TypeVar("Result")

OK_STATE = [0.01, -0.02, 0.03, 0.01]
RSS_BOUND_MB = 40
"""The most the service's peak memory may grow while it refuses a huge body."""


@pytest.fixture(scope="module")
def service(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    env = {
        "MAZE_SERVICE_TOKEN": TOKEN,
        "MAZE_SERVICE_MAX_CLIENT_REQUESTS": str(MAX_CLIENT_REQUESTS),
        "MAZE_SERVICE_MAX_OPEN_EPISODES": str(MAX_OPEN_EPISODES),
        "MAZE_SERVICE_MAX_CLIENT_EPISODES": str(MAX_CLIENT_EPISODES),
    }
    yield from serve(model_dir, tmp_path_factory.mktemp("hardening"), env=env)


@pytest.fixture()
def client(service: ServiceProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service.url, timeout=10, headers=AUTH) as client:
        yield client


def with_peak_rss_growth(service: ServiceProcess, attack: Callable[[], Result]) -> tuple[Result, float]:
    """``attack()``, and how far the service's peak resident memory (VmHWM, MB) rose above its resident memory meanwhile."""
    proc = Path(f"/proc/{service.process.pid}")
    if not proc.is_dir():
        pytest.skip("needs Linux /proc to read the service's memory")

    def read(field: str) -> float:
        line = next(line for line in (proc / "status").read_text().splitlines() if line.startswith(field))
        return int(line.split()[1]) / 1024

    try:
        (proc / "clear_refs").write_text("5")  # the peak restarts at the current resident size
        before = read("VmHWM")
    except OSError:
        before = read("VmRSS")
    result = attack()
    return result, read("VmHWM") - before


def assert_refusal(answer: tuple[int, dict[str, str], bytes], status: int, field: object, text: str) -> None:
    """``answer`` is the service's one error body with ``status``, naming ``field`` and saying ``text``."""
    got, _, body = answer
    assert got == status, body[:300]
    error = json.loads(body)
    assert set(error) == {"error", "field"} and error["field"] == field
    assert text in error["error"]


@pytest.mark.parametrize(
    ("blocks", "frame"),
    [
        pytest.param(200 * 16, INFO_STRING, id="200 MB info string"),
        pytest.param(60 * 16, OBSERVATION_LIST, id="60 MB list"),
    ],
)
def test_a_declared_huge_body_gets_413_before_it_is_read(
    service: ServiceProcess, client: httpx.Client, blocks: int, frame: tuple[bytes, bytes]
) -> None:
    episode = client.post("/episodes", json={"seed": 1}).json()["episode_id"]
    size, body = huge_body(blocks, frame)
    head = request_head(
        "POST", f"/episodes/{episode}/act", {**AUTH, "Content-Type": "application/json", "Content-Length": str(size)}
    )
    started = time.perf_counter()
    (answer, sent), growth = with_peak_rss_growth(service, lambda: send_raw(service.url, head, body, timeout=60))
    seconds = time.perf_counter() - started
    assert_refusal(answer, 413, "body", f"larger than the {LIMIT} bytes")
    assert answer[1]["connection"] == "close"  # the rest of the body is never read
    assert sent < 16 << 20 and seconds < 5.0
    assert growth < RSS_BOUND_MB, f"the service's peak memory grew by {growth:.0f} MB"
    assert client.post(f"/episodes/{episode}/act", json={"observation": OK_STATE}).status_code == 200


def test_a_streamed_60_mb_body_gets_413_once_it_passes_the_limit(service: ServiceProcess) -> None:
    head = request_head(
        "POST", "/episodes", {**AUTH, "Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    )
    _, body = huge_body(60 * 16)
    (answer, sent), growth = with_peak_rss_growth(
        service, lambda: send_raw(service.url, head, chunked(body), timeout=60)
    )
    assert_refusal(answer, 413, "body", f"larger than the {LIMIT} bytes")
    assert sent < 16 << 20
    assert growth < RSS_BOUND_MB, f"the service's peak memory grew by {growth:.0f} MB"


def test_a_body_at_the_limit_is_read_and_parsed(client: httpx.Client) -> None:
    episode = client.post("/episodes", json={"seed": 1}).json()["episode_id"]
    padding = LIMIT - len(json.dumps({"observation": OK_STATE, "info": {"note": ""}}))
    body = json.dumps({"observation": OK_STATE, "info": {"note": "x" * padding}}).encode()
    assert len(body) == LIMIT
    response = client.post(f"/episodes/{episode}/act", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 200, response.text
    response = client.post(
        f"/episodes/{episode}/act", content=body + b" ", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413 and response.json()["field"] == "body"


def test_a_body_of_too_many_values_gets_413_unparsed(client: httpx.Client) -> None:
    episode = client.post("/episodes", json={"seed": 1}).json()["episode_id"]
    url = f"/episodes/{episode}/act"
    started = time.perf_counter()
    response = client.post(url, content=MANY_VALUES, headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and response.json()["field"] == "body", response.text
    assert "more than" in response.json()["error"] and time.perf_counter() - started < 0.5
    info = {"note": "a, b, c" * 10_000, "values": list(range(5_000))}  # commas in strings are no values
    assert client.post(url, json={"observation": OK_STATE, "info": info}).status_code == 200


def test_every_route_but_health_needs_the_token(service: ServiceProcess, client: httpx.Client) -> None:
    episode = client.post("/episodes", json={"seed": 1}).json()["episode_id"]
    routes = [
        ("POST", "/episodes", {"seed": 2}),
        ("POST", f"/episodes/{episode}/act", {"observation": OK_STATE}),
        ("POST", f"/episodes/{episode}/close", {"observation": OK_STATE}),
        ("GET", "/metrics", None),
    ]
    with httpx.Client(base_url=service.url, timeout=10) as anonymous:
        for method, path, body in routes:
            for headers in (
                {},
                {"Authorization": "Bearer wrong"},
                {"Authorization": TOKEN},
                {"Authorization": "Basic x"},
            ):
                response = anonymous.request(method, path, json=body, headers=headers)
                assert response.status_code == 401, (method, path, headers, response.text)
                assert response.headers["www-authenticate"] == "Bearer"
                assert "Authorization: Bearer" in response.json()["error"] and TOKEN not in response.text
        assert anonymous.get("/health").status_code == 200
    assert client.post(f"/episodes/{episode}/act", json={"observation": OK_STATE}).status_code == 200


def test_the_bundled_client_sends_the_token(service: ServiceProcess, monkeypatch: pytest.MonkeyPatch) -> None:
    async def play(token: object) -> dict:
        async with ServiceClient(service.url, token=token) as client:
            return (await client.play_episode(seed=5, max_steps=3)).summary

    assert asyncio.run(play(TOKEN))["outcome"] == "closed"
    monkeypatch.setenv("MAZE_SERVICE_TOKEN", TOKEN)  # as the service reads it
    assert asyncio.run(play(None))["steps"] == 3
    monkeypatch.delenv("MAZE_SERVICE_TOKEN")
    with pytest.raises(httpx.HTTPStatusError, match="401"):
        asyncio.run(play(None))


def test_health_shows_no_file_system_path(service: ServiceProcess, model_dir: Path) -> None:
    text = httpx.get(f"{service.url}/health").text
    health = json.loads(text)
    for path in {str(model_dir), str(model_dir.resolve()), str(model_dir.parent)}:
        assert path not in text
    assert "model_dir" not in health and "/" not in health["model"]
    assert health["model"].startswith("sha256:") and health["authentication"] == "bearer"


def test_a_client_with_its_most_requests_in_progress_gets_429_and_others_go_on(service: ServiceProcess) -> None:
    stalled_head = request_head("POST", "/episodes", {**AUTH, "Content-Length": "100"})  # a body that never comes
    stalled = [open_connection(service.url, "127.0.0.3") for _ in range(MAX_CLIENT_REQUESTS)]
    try:
        for sock in stalled:
            sock.sendall(stalled_head)
        time.sleep(0.2)
        head = request_head("GET", "/metrics", AUTH)
        answer, _ = send_raw(service.url, head, source="127.0.0.3")
        assert_refusal(answer, 429, None, f"{MAX_CLIENT_REQUESTS} requests of this client are in progress")
        assert answer[1]["retry-after"] == "1"
        assert send_raw(service.url, head, source="127.0.0.5")[0][0] == 200  # another client goes on
    finally:
        for sock in stalled:
            sock.close()
    for _ in range(50):  # the closed connections free their places
        if send_raw(service.url, head, source="127.0.0.3")[0][0] == 200:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the client's places were not freed after its connections closed")


def test_the_open_episode_limits_hold_under_10000_opens(service: ServiceProcess, client: httpx.Client) -> None:
    open_before = client.get("/metrics").json()["open_episodes"]
    assert open_before + MAX_CLIENT_EPISODES < MAX_OPEN_EPISODES

    async def flood() -> list[tuple[Counter[int], list[str]]]:
        first = await open_many(service.url, 5_000, MAX_CLIENT_REQUESTS, "127.0.0.6", TOKEN)  # one client alone
        others = (
            open_many(service.url, 2_500, MAX_CLIENT_REQUESTS, source, TOKEN) for source in ("127.0.0.7", "127.0.0.8")
        )
        return [first, *await asyncio.gather(*others)]  # then two at once

    started = time.perf_counter()
    results = asyncio.run(flood())
    seconds = time.perf_counter() - started
    statuses = sum((counts for counts, _ in results), Counter())
    print(f"10,000 opens in {seconds:.1f} s: {dict(statuses)}")
    assert sum(statuses.values()) == 10_000 and set(statuses) <= {201, 429, 503}, statuses
    assert results[0][0] == {201: MAX_CLIENT_EPISODES, 429: 5_000 - MAX_CLIENT_EPISODES}  # the client's limit
    assert all(len(ids) <= MAX_CLIENT_EPISODES for _, ids in results)
    opened = [episode for _, ids in results for episode in ids]
    assert len(opened) == MAX_OPEN_EPISODES - open_before  # the service's limit: every place taken, none more
    assert client.get("/metrics").json()["open_episodes"] == MAX_OPEN_EPISODES
    refused = client.post("/episodes")
    assert refused.status_code == 503 and f"{MAX_OPEN_EPISODES} episodes are open" in refused.json()["error"]
    for episode in opened:  # give the places back for the other tests
        client.post(f"/episodes/{episode}/act", json={"observation": OK_STATE})
        assert client.post(f"/episodes/{episode}/close", json={"observation": OK_STATE}).status_code == 200
    assert client.post("/episodes").status_code == 201


def test_a_client_flooding_60_mb_and_many_value_bodies_leaves_others_p99_below_50_ms(
    service: ServiceProcess, client: httpx.Client
) -> None:
    episode = client.post("/episodes", json={"seed": 3}).json()["episode_id"]
    act = {"observation": OK_STATE, "reward": 1.0}
    for _ in range(20):  # warm connection and code paths
        client.get("/health"), client.post(f"/episodes/{episode}/act", json=act)
    hostile = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("hostile.py")), service.url, "4", "127.0.0.2", TOKEN],
        stdout=subprocess.PIPE,
        text=True,
    )
    latencies: dict[str, list[float]] = {"health": [], "act": []}
    try:
        time.sleep(0.5)  # the flood is on
        deadline = time.perf_counter() + 3.0
        while time.perf_counter() < deadline:
            for name, call in (
                ("health", lambda: client.get("/health")),
                ("act", lambda: client.post(f"/episodes/{episode}/act", json=act)),
            ):
                started = time.perf_counter()
                try:
                    response = call()
                    assert response.status_code == 200, response.text
                    latencies[name].append(time.perf_counter() - started)
                except httpx.TimeoutException:
                    latencies[name].append(float("inf"))
        flooded = Counter(json.loads(hostile.communicate(timeout=60)[0]))
    finally:
        hostile.kill()
    p99 = {name: float(np.percentile(np.array(values) * 1000, 99)) for name, values in latencies.items()}
    print(f"hostile client's answers: {dict(flooded)}; others' p99: {p99} ms over {len(latencies['act'])} acts")
    assert p99["health"] < 50 and p99["act"] < 50, p99
    assert flooded["413"] >= 15 and not any(status.startswith("2") for status in flooded), flooded  # it did flood
