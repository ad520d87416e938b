"""``POST /episodes/{id}/recommend`` and ``maze_state`` requests, against a real server of the tiny Cutting-2D export.

The module's service has a token, small recommendation bounds (k <= 4, horizon <= 30,
n_rollouts <= 4) and at most 2 recommendations in progress, all from the environment. Its
answers are compared with an in-process ONNX deployment of the same export.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import httpx
import numpy as np
import pytest
from agent_service.client import ServiceClient
from agent_service.process import ServiceProcess
from agent_service.state_data import state_to_json
from conftest import serve
from hostile import request_head, send_raw
from maze.deploy import AgentDeployment
from maze.env.examples.cutting_2d.maze_state import Cutting2DMazeState

TOKEN = "a-token-for-the-recommend-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
MAX_K, MAX_HORIZON, MAX_ROLLOUTS, MAX_RECOMMENDATIONS = 4, 30, 4, 2
BUDGET_S = 5.0

STATE = {
    "inventory": [[4, 3], [2, 3]],
    "max_pieces_in_inventory": 50,
    "current_demand": [1, 2],
    "raw_piece_size": [4, 3],
}
"""A Cutting-2D state in its data form (the tutorial env: raw pieces of 4 x 3, 50 places in the inventory)."""

NO_DEMAND = {key: value for key, value in STATE.items() if key != "current_demand"}

SMALL = {"k": 3, "horizon": 5, "n_rollouts": 2, "seed": 7}
"""A quick recommendation."""


@pytest.fixture(scope="module")
def service(cutting_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceProcess]:
    env = {
        "MAZE_SERVICE_TOKEN": TOKEN,
        "MAZE_SERVICE_MAX_RECOMMEND_K": str(MAX_K),
        "MAZE_SERVICE_MAX_RECOMMEND_HORIZON": str(MAX_HORIZON),
        "MAZE_SERVICE_MAX_RECOMMEND_ROLLOUTS": str(MAX_ROLLOUTS),
        "MAZE_SERVICE_MAX_RECOMMENDATIONS": str(MAX_RECOMMENDATIONS),
        "MAZE_SERVICE_RECOMMEND_BUDGET_S": str(BUDGET_S),
    }
    yield from serve(cutting_dir, tmp_path_factory.mktemp("recommend"), env=env)


@pytest.fixture()
def client(service: ServiceProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=service.url, timeout=30, headers=AUTH) as client:
        yield client


@pytest.fixture(scope="module")
def episode(service: ServiceProcess) -> str:
    with httpx.Client(base_url=service.url, timeout=30, headers=AUTH) as client:
        return client.post("/episodes", json={"seed": 1}).json()["episode_id"]


@pytest.fixture(scope="module")
def agent(cutting_dir: Path) -> AgentDeployment:
    """An in-process deployment of the same export, as the service builds one."""
    return AgentDeployment.from_run_dir(cutting_dir, backend="onnx", deterministic=True)


def without_timing(recommendation: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in recommendation.items() if key != "elapsed_s"}


def test_health_names_the_state_and_that_the_env_simulates(client: httpx.Client) -> None:
    health = client.get("/health").json()
    assert health["state"] == {"field": "maze_state", "class": "Cutting2DMazeState"}
    assert health["recommend"] is True and health["observation_space"] is None


def test_act_takes_the_maze_state_in_its_data_form(client: httpx.Client, agent: AgentDeployment) -> None:
    episode = client.post("/episodes", json={"seed": 3}).json()["episode_id"]
    answer = client.post(f"/episodes/{episode}/act", json={"maze_state": STATE})
    assert answer.status_code == 200, answer.text
    agent.reset(seed=3)
    expected = agent.act(Cutting2DMazeState([(4, 3), (2, 3)], 50, (1, 2), (4, 3)), 0.0, False, {})
    assert answer.json() == {"action": state_to_json(expected), "step": 1}
    observation = client.post(f"/episodes/{episode}/act", json={"observation": [0.0]})
    assert (
        observation.status_code == 422 and observation.json()["field"] == "maze_state"
    )  # this env takes no observation
    close = client.post(f"/episodes/{episode}/close", json={"maze_state": STATE, "terminated": True})
    assert close.status_code == 200 and close.json()["outcome"] == "closed"


def test_a_recommendation_is_what_the_in_process_deployment_recommends(
    client: httpx.Client, episode: str, agent: AgentDeployment
) -> None:
    answer = client.post(f"/episodes/{episode}/recommend", json={"maze_state": STATE, **SMALL})
    assert answer.status_code == 200, answer.text
    served = answer.json()
    state = Cutting2DMazeState([(4, 3), (2, 3)], 50, (1, 2), (4, 3))
    expected = agent.recommend(state, **SMALL, time_budget_s=BUDGET_S).to_dict()
    assert without_timing(served) == without_timing(expected)
    candidates = served["candidates"]
    assert [candidate["rank"] for candidate in candidates] == list(range(len(candidates)))
    assert candidates[0]["is_policy_choice"] and not any(c["is_policy_choice"] for c in candidates[1:])
    assert len({json.dumps(candidate["action"]) for candidate in candidates}) == len(candidates)
    assert served["rollouts_finished"] == served["rollouts_requested"] == len(candidates) * SMALL["n_rollouts"]
    assert not served["timed_out"]
    again = client.post(f"/episodes/{episode}/recommend", json={"maze_state": STATE, **SMALL}).json()
    assert without_timing(again) == without_timing(served)  # deterministic for a seed
    metrics = client.get("/metrics").json()["recommend_latency_ms"]
    assert metrics["recommendations"] >= 2 and metrics["p99"] > 0


def test_the_time_budget_bounds_a_recommendation(client: httpx.Client, episode: str) -> None:
    body = {"maze_state": STATE, "k": MAX_K, "horizon": MAX_HORIZON, "n_rollouts": MAX_ROLLOUTS, "time_budget_s": 0.01}
    started = time.perf_counter()
    answer = client.post(f"/episodes/{episode}/recommend", json=body)
    seconds = time.perf_counter() - started
    assert answer.status_code == 200, answer.text
    recommendation = answer.json()
    assert recommendation["timed_out"] and recommendation["rollouts_finished"] < recommendation["rollouts_requested"]
    assert seconds < 2.0
    # a request cannot ask for more than the service's budget: it is cut to BUDGET_S, so this one finishes
    body["time_budget_s"] = 1e9
    assert client.post(f"/episodes/{episode}/recommend", json={**body, "horizon": 3}).status_code == 200


BAD_REQUESTS: list[tuple[str, Any, int, Optional[str], str]] = [
    # (case, body (bytes: sent raw), status, field named, text in the message)
    ("k zero", {"maze_state": STATE, "k": 0}, 422, "k", "greater than or equal to 1"),
    ("k above the bound", {"maze_state": STATE, "k": MAX_K + 1}, 422, "k", f"at most {MAX_K}"),
    ("k as text", {"maze_state": STATE, "k": "3"}, 422, "k", "integer"),
    ("horizon above", {"maze_state": STATE, "horizon": MAX_HORIZON + 1}, 422, "horizon", "MAX_RECOMMEND_HORIZON"),
    ("rollouts above", {"maze_state": STATE, "n_rollouts": 1000}, 422, "n_rollouts", f"at most {MAX_ROLLOUTS}"),
    ("negative seed", {"maze_state": STATE, "seed": -1}, 422, "seed", "greater than or equal to 0"),
    ("zero budget", {"maze_state": STATE, "time_budget_s": 0}, 422, "time_budget_s", "greater than 0"),
    ("no state", {"k": 3}, 422, "maze_state", "required"),
    ("unknown field", {"maze_state": STATE, "kk": 3}, 422, "kk", "not permitted"),
    ("state not an object", {"maze_state": [1, 2]}, 422, "maze_state", "must be an object of the fields"),
    ("state as text", {"maze_state": "full"}, 422, "maze_state", "must be an object"),
    ("missing state field", {"maze_state": NO_DEMAND}, 422, "maze_state.current_demand", "is missing"),
    ("unknown state field", {"maze_state": {**STATE, "stock": 1}}, 422, "maze_state.stock", "is no field"),
    ("piece of 3 numbers", {"maze_state": {**STATE, "inventory": [[4, 3, 1]]}}, 422, "maze_state.inventory[0]", "2"),
    ("piece of text", {"maze_state": {**STATE, "current_demand": ["a", 2]}}, 422, "maze_state.current_demand[0]", ""),
    ("bool for int", {"maze_state": {**STATE, "max_pieces_in_inventory": True}}, 422, None, "integer"),
    ("huge int", {"maze_state": {**STATE, "max_pieces_in_inventory": 10**30}}, 422, None, "64-bit"),
    ("NaN in state", json.dumps({"maze_state": STATE}).replace("[4, 3]", "[NaN, 3]", 1).encode(), 422, None, "integer"),
    ("malformed JSON", b'{"maze_state": {', 400, "body", "not valid JSON"),
]


@pytest.mark.parametrize(
    ("body", "status", "field", "text"), [pytest.param(*case[1:], id=case[0]) for case in BAD_REQUESTS]
)
def test_a_bad_recommend_request_gets_one_clear_4xx_and_the_episode_goes_on(
    client: httpx.Client, episode: str, body: Any, status: int, field: Optional[str], text: str
) -> None:
    path = f"/episodes/{episode}/recommend"
    if isinstance(body, bytes):
        response = client.post(path, content=body, headers={"Content-Type": "application/json"})
    else:
        response = client.post(path, json=body)
    assert response.status_code == status, response.text
    error = response.json()
    assert set(error) == {"error", "field"}
    assert field is None or error["field"] == field, error
    assert text in error["error"], error
    assert client.post(path, json={"maze_state": STATE, **SMALL}).status_code == 200


def test_a_state_the_env_refuses_gets_422(client: httpx.Client, episode: str) -> None:
    other_capacity = {**STATE, "max_pieces_in_inventory": 2, "inventory": [[4, 3], [4, 3], [4, 3]]}
    response = client.post(f"/episodes/{episode}/recommend", json={"maze_state": other_capacity, **SMALL})
    assert response.status_code == 422, response.text
    assert response.json()["field"] == "maze_state"


def test_recommend_has_the_limits_of_every_route(service: ServiceProcess, client: httpx.Client, episode: str) -> None:
    path = f"/episodes/{episode}/recommend"
    with httpx.Client(base_url=service.url, timeout=10) as anonymous:
        response = anonymous.post(path, json={"maze_state": STATE})
        assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
    unknown = client.post("/episodes/0123456789abcdef/recommend", json={"maze_state": STATE})
    assert unknown.status_code == 404 and unknown.json()["field"] == "episode_id"
    head = request_head("POST", path, {**AUTH, "Content-Type": "application/json", "Content-Length": str(2 << 20)})
    (status, headers, body), _ = send_raw(service.url, head, iter([b"{}"]))
    assert status == 413 and json.loads(body)["field"] == "body"
    many = json.dumps({"maze_state": {**STATE, "inventory": [[1, 1]] * 5000}}).encode()
    response = client.post(path, content=many, headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and "more than" in response.json()["error"], response.text


def test_more_recommendations_than_the_service_computes_at_once_get_503(service: ServiceProcess) -> None:
    body = {"maze_state": STATE, "k": MAX_K, "horizon": MAX_HORIZON, "n_rollouts": MAX_ROLLOUTS, "time_budget_s": 1.0}

    async def burst() -> Counter[int]:
        async with ServiceClient(service.url, token=TOKEN) as client:
            episode = await client.start_episode(5)
            episodes = [episode, *[await client.start_episode(seed) for seed in range(MAX_RECOMMENDATIONS + 2)]]
            answers = await asyncio.gather(
                *(client.request("POST", f"/episodes/{e}/recommend", body) for e in episodes)
            )
        return Counter(answer.status_code for answer in answers)

    statuses = asyncio.run(burst())
    assert statuses[200] >= 1 and statuses[503] >= 1 and set(statuses) <= {200, 503}, statuses


def test_others_p99_stays_below_50_ms_while_recommendations_compute(service: ServiceProcess) -> None:
    body = {"maze_state": STATE, "k": MAX_K, "horizon": MAX_HORIZON, "n_rollouts": MAX_ROLLOUTS, "time_budget_s": 1.0}
    with httpx.Client(base_url=service.url, timeout=10, headers=AUTH) as other:
        episode = other.post("/episodes", json={"seed": 9}).json()["episode_id"]
        act = {"maze_state": STATE}
        for _ in range(20):
            other.get("/health"), other.post(f"/episodes/{episode}/act", json=act)

        async def recommend_for(seconds: float) -> int:
            done = 0
            async with ServiceClient(service.url, token=TOKEN) as client:
                episodes = [await client.start_episode(seed) for seed in range(MAX_RECOMMENDATIONS)]
                deadline = time.perf_counter() + seconds

                async def loop(episode_id: str) -> None:
                    nonlocal done
                    while time.perf_counter() < deadline:
                        answer = await client.request("POST", f"/episodes/{episode_id}/recommend", body)
                        assert answer.status_code == 200, answer.text
                        done += 1

                await asyncio.gather(*(loop(e) for e in episodes))
            return done

        result: dict[str, int] = {}
        thread = threading.Thread(target=lambda: result.setdefault("done", asyncio.run(recommend_for(4.0))))
        thread.start()
        latencies: dict[str, list[float]] = {"health": [], "act": []}
        time.sleep(0.5)
        deadline = time.perf_counter() + 3.0
        while time.perf_counter() < deadline:
            for name, call in (
                ("health", lambda: other.get("/health")),
                ("act", lambda: other.post(f"/episodes/{episode}/act", json=act)),
            ):
                started = time.perf_counter()
                assert call().status_code == 200
                latencies[name].append(time.perf_counter() - started)
        thread.join()
    p99 = {name: float(np.percentile(np.array(values) * 1000, 99)) for name, values in latencies.items()}
    print(f"{result.get('done')} recommendations; another client's p99: {p99} ms over {len(latencies['act'])} acts")
    assert result.get("done", 0) >= MAX_RECOMMENDATIONS
    assert p99["health"] < 50 and p99["act"] < 50, p99
