"""The service under load, under bad requests and across a restart: a real uvicorn server, a real HTTP client.

The module's server samples actions (``--sample``), so an episode's actions depend on its
seed and on nothing else — which is what the in-process comparison checks.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import gymnasium as gym
import httpx
import pytest
from agent_service.client import EpisodeResult, ServiceClient
from agent_service.process import ServiceProcess
from conftest import serve
from maze.deploy import AgentDeployment

N_EPISODES = 200
MAX_STEPS = 30
CONNECTIONS = 32
"""200 episodes open at once, each cut after 30 actions, with at most 32 requests out at a time (the bounded load)."""

OK_STATE = [0.01, -0.02, 0.03, 0.01]


@pytest.fixture(scope="module")
def episode_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the module's service logs its ended episodes."""
    return tmp_path_factory.mktemp("service") / "episodes.jsonl"


@pytest.fixture(scope="module")
def service(model_dir: Path, episode_log: Path) -> Iterator[ServiceProcess]:
    yield from serve(model_dir, episode_log.parent, "--sample", "--episode-log", str(episode_log))


@pytest.fixture()
def client(service: ServiceProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service.url, timeout=30) as client:
        yield client


def in_process(model_dir: Path, seeds: range, max_steps: Optional[int]) -> list[EpisodeResult]:
    """The same episodes with one in-process ONNX deployment (``reset(seed)`` per episode)."""
    agent = AgentDeployment.from_run_dir(model_dir, backend="onnx", deterministic=False)
    env, results = gym.make("CartPole-v1"), []
    for seed in seeds:
        result = EpisodeResult(seed)
        state, info = env.reset(seed=seed)
        agent.reset(seed=seed)
        reward, terminated, truncated = 0.0, False, False
        while not (terminated or truncated) and len(result.actions) < max_steps:
            action = agent.act(state, reward, False, info)
            result.actions.append(int(action))
            state, reward, terminated, truncated, info = env.step(action)
            result.episode_return += float(reward)
        agent.close(state, reward, terminated=terminated, truncated=truncated or not terminated)
        results.append(result)
    return results


def test_200_concurrent_episodes_return_what_the_in_process_deployment_returns(
    service: ServiceProcess, model_dir: Path
) -> None:
    seeds = range(1000, 1000 + N_EPISODES)

    async def load() -> tuple[int, int, list[EpisodeResult]]:
        async with ServiceClient(service.url, max_in_flight=CONNECTIONS) as client:
            before = (await client.request("GET", "/metrics")).json()["open_episodes"]
            ids = await asyncio.gather(*(client.start_episode(seed) for seed in seeds))
            during = (await client.request("GET", "/metrics")).json()["open_episodes"]
            results = await asyncio.gather(
                *(
                    client.drive_episode(episode, seed, max_steps=MAX_STEPS)
                    for episode, seed in zip(ids, seeds, strict=True)
                )
            )
        return before, during, list(results)

    before, during, results = asyncio.run(load())
    assert during - before == N_EPISODES  # all 200 were open at the same time
    expected = in_process(model_dir, seeds, MAX_STEPS)
    assert [result.episode_return for result in results] == [result.episode_return for result in expected]
    assert [result.actions for result in results] == [result.actions for result in expected]
    assert len({result.episode_return for result in results}) > 1  # the seeds matter: episodes differ
    for result in results:
        assert result.summary["outcome"] == "closed"
        assert result.summary["return"] == result.episode_return
        assert result.summary["steps"] == len(result.actions)


@pytest.fixture(scope="module")
def episode(service: ServiceProcess) -> str:
    """An open episode that has acted once."""
    with httpx.Client(base_url=service.url) as client:
        episode_id = client.post("/episodes", json={"seed": 1}).json()["episode_id"]
        assert client.post(f"/episodes/{episode_id}/act", json={"observation": OK_STATE}).status_code == 200
    return episode_id


BAD_REQUESTS: list[tuple[str, str, str, Any, int, Optional[str], str]] = [
    # (case, method, route, body (bytes: sent raw), status, field named, text in the message)
    ("malformed JSON", "POST", "act", b'{"observation": [0.0, 0.1', 400, "body", "not valid JSON"),
    ("body not an object", "POST", "act", [1, 2, 3], 422, "body", "JSON object"),
    ("no observation", "POST", "act", {"reward": 1.0}, 422, "observation", "required"),
    ("unknown field", "POST", "act", {"observation": OK_STATE, "rewrd": 1.0}, 422, "rewrd", "not permitted"),
    ("too few numbers", "POST", "act", {"observation": [0.0, 0.0, 0.0]}, 422, "observation", "shape (3,)"),
    ("nested too deep", "POST", "act", {"observation": [OK_STATE]}, 422, "observation", "shape (1, 4)"),
    ("ragged lists", "POST", "act", {"observation": [[0.0], [0.0, 1.0], 0.0, 0.0]}, 422, "observation", "ragged"),
    ("a string", "POST", "act", {"observation": "upright"}, 422, "observation", "numbers"),
    ("a string inside", "POST", "act", {"observation": [0.0, "a", 0.0, 0.0]}, 422, "observation", "numbers"),
    ("null", "POST", "act", {"observation": None}, 422, "observation", "numbers"),
    ("outside its space", "POST", "act", {"observation": [9.0, 0.0, 0.0, 0.0]}, 422, "observation", "outside"),
    ("NaN observation", "POST", "act", b'{"observation": [NaN, 0, 0, 0]}', 422, "observation", "non-finite"),
    ("infinite observation", "POST", "act", b'{"observation": [0, Infinity, 0, 0]}', 422, "observation", "non-finite"),
    ("infinite reward", "POST", "act", b'{"observation": [0, 0, 0, 0], "reward": Infinity}', 422, "reward", "finite"),
    ("NaN reward", "POST", "act", b'{"observation": [0, 0, 0, 0], "reward": NaN}', 422, "reward", "finite"),
    ("reward as text", "POST", "act", {"observation": OK_STATE, "reward": "1.0"}, 422, "reward", "number"),
    ("info not an object", "POST", "act", {"observation": OK_STATE, "info": [1]}, 422, "info", "object"),
    ("flag as text", "POST", "close", {"observation": OK_STATE, "terminated": "yes"}, 422, "terminated", "bool"),
    ("close outside", "POST", "close", {"observation": [0.0, 0.0, 1.0, 0.0]}, 422, "observation", "outside"),
    ("unknown episode", "POST", "unknown", {"observation": OK_STATE}, 404, "episode_id", "no open episode"),
    ("negative seed", "POST", "start", {"seed": -1}, 422, "seed", "greater than or equal to 0"),
    ("seed as text", "POST", "start", {"seed": "7"}, 422, "seed", "integer"),
    ("recommend, no simulation", "POST", "recommend", {"maze_state": OK_STATE}, 501, None, "cannot simulate"),
    ("unknown route", "GET", "/nothing", None, 404, None, "Not Found"),
    ("wrong method", "GET", "act", None, 405, None, "Method Not Allowed"),
]


def route(name: str, episode_id: str) -> str:
    """The path of a route name of :data:`BAD_REQUESTS` (other names are paths)."""
    paths = {
        "act": f"/episodes/{episode_id}/act",
        "close": f"/episodes/{episode_id}/close",
        "recommend": f"/episodes/{episode_id}/recommend",
        "unknown": "/episodes/0123456789abcdef/act",
        "start": "/episodes",
    }
    return paths.get(name, name)


def errors(client: httpx.Client) -> int:
    return client.get("/metrics").json()["errors"]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "field", "text"),
    [pytest.param(*case[1:], id=case[0]) for case in BAD_REQUESTS],
)
def test_a_bad_request_gets_one_clear_4xx_and_the_service_goes_on(
    client: httpx.Client,
    service: ServiceProcess,
    episode: str,
    method: str,
    path: str,
    body: Any,
    status: int,
    field: Optional[str],
    text: str,
) -> None:
    errors_before = errors(client)
    if isinstance(body, bytes):
        options: dict[str, Any] = {"content": body, "headers": {"content-type": "application/json"}}
    else:
        options = {} if body is None else {"json": body}
    response = client.request(method, route(path, episode), **options)
    assert response.status_code == status, response.text
    answer = response.json()
    assert set(answer) == {"error", "field"} and answer["field"] == field
    assert text in answer["error"]
    if field is not None:  # the message names the field too
        assert ("episode" if field == "episode_id" else field) in answer["error"]
    assert errors(client) == errors_before + 1  # one error response, no more
    # the episode and the service go on
    assert client.post(f"/episodes/{episode}/act", json={"observation": OK_STATE, "reward": 1.0}).status_code == 200
    assert service.alive()


def test_an_ended_episode_answers_409_and_close_before_act_keeps_the_episode(client: httpx.Client) -> None:
    episode_id = client.post("/episodes", json={"seed": 2}).json()["episode_id"]
    early = client.post(f"/episodes/{episode_id}/close", json={"observation": OK_STATE})
    assert early.status_code == 409 and early.json()["field"] == "episode_id"
    assert "first act" in early.json()["error"]
    assert client.post(f"/episodes/{episode_id}/act", json={"observation": OK_STATE}).status_code == 200
    closed = client.post(f"/episodes/{episode_id}/close", json={"observation": OK_STATE, "reward": 1.0})
    assert closed.status_code == 200 and closed.json()["outcome"] == "closed"
    again = client.post(f"/episodes/{episode_id}/act", json={"observation": OK_STATE})
    assert again.status_code == 409 and "has ended (closed)" in again.json()["error"]


def test_health_names_the_spaces_and_metrics_count_acts(client: httpx.Client) -> None:
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["env"] == "CartPole-v1"
    assert health["action_space"] == "Discrete(2)" and "(4,)" in health["observation_space"]
    metrics = client.get("/metrics").json()
    assert metrics["act_latency_ms"]["acts"] >= N_EPISODES
    assert 0 < metrics["act_latency_ms"]["p50"] <= metrics["act_latency_ms"]["p99"]
    assert metrics["requests"] > metrics["errors"] >= len(BAD_REQUESTS)


def test_a_killed_and_restarted_service_loses_only_its_open_episodes(
    service: ServiceProcess, episode_log: Path
) -> None:
    async def before_kill() -> tuple[EpisodeResult, str]:
        async with ServiceClient(service.url) as client:
            finished = await client.play_episode(seed=77)
            unfinished = await client.start_episode(seed=78)
            await client.post(f"/episodes/{unfinished}/act", {"observation": OK_STATE})
            return finished, unfinished

    finished, unfinished = asyncio.run(before_kill())
    service.kill()  # SIGKILL: no shutdown code runs
    assert not service.alive()
    service.start()  # the same port, as a supervisor would restart it

    with httpx.Client(base_url=service.url) as client:
        lost = client.post(f"/episodes/{unfinished}/act", json={"observation": OK_STATE})
        assert lost.status_code == 404 and lost.json()["field"] == "episode_id"
        assert "restart" in lost.json()["error"]
        assert client.get("/metrics").json()["open_episodes"] == 0
    replayed, _ = asyncio.run(before_kill())
    assert (replayed.actions, replayed.episode_return) == (finished.actions, finished.episode_return)

    log = [json.loads(line) for line in episode_log.read_text().splitlines()]
    ended = {entry["episode_id"]: entry for entry in log}
    assert ended[finished.summary["episode_id"]]["return"] == finished.episode_return  # written before the kill
    assert unfinished not in ended  # the open episode is what was lost
