"""A reference client: plays gymnasium episodes with the service as the agent (httpx, asyncio).

The client owns the env, as a production system owns its process: it resets the env,
sends each state to ``act``, executes the returned action and ends the episode with
``close``. The tests and the benchmark drive the service with it.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import gymnasium as gym
import httpx

__all__ = ["EpisodeResult", "ServiceClient"]


@dataclass
class EpisodeResult:
    """What one episode played through the service gave.

    Attributes:
        seed: The seed of the env's reset and of the service's episode.
        episode_return: The sum of the env's rewards.
        actions: The actions the service returned, in order.
        act_seconds: The round-trip time of each act request.
        summary: The service's answer to ``close`` (its steps, return, outcome).
    """

    seed: int
    episode_return: float = 0.0
    actions: list[Any] = field(default_factory=list)
    act_seconds: list[float] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def requests(self) -> int:
        """The requests the episode took: start, every act, close."""
        return len(self.actions) + 2


class ServiceClient:
    """An async HTTP client of the service that has at most ``max_in_flight`` requests out at a time.

    Any number of episodes may be open and driven concurrently; their requests queue here
    (not in httpx's connection pool, which slows down with many waiters).

    Args:
        url: The service's base URL.
        max_in_flight: Requests (and connections) at a time (the service answers a client's requests beyond
            its ``--max-client-requests`` with 429).
        timeout: Seconds per request.
        token: The service's bearer token, sent with every request (None: ``MAZE_SERVICE_TOKEN``, if set).
    """

    def __init__(self, url: str, max_in_flight: int = 32, timeout: float = 120.0, token: Optional[str] = None) -> None:
        limits = httpx.Limits(max_connections=max_in_flight, max_keepalive_connections=max_in_flight)
        token = token or os.environ.get("MAZE_SERVICE_TOKEN")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout, headers=headers)
        self._slots = asyncio.Semaphore(max_in_flight)

    async def __aenter__(self) -> ServiceClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.http.aclose()

    async def request(self, method: str, path: str, body: Optional[Any] = None) -> httpx.Response:
        """Sends one request (JSON ``body``) once a slot is free."""
        async with self._slots:
            return await self.http.request(method, path, json=body)

    async def post(self, path: str, body: Any) -> dict[str, Any]:
        """POSTs ``body``; returns the JSON answer.

        Raises:
            httpx.HTTPStatusError: The service refused the request.
        """
        response = await self.request("POST", path, body)
        response.raise_for_status()
        return response.json()

    async def start_episode(self, seed: int) -> str:
        """Opens an episode seeded with ``seed``; returns its id."""
        return (await self.post("/episodes", {"seed": seed}))["episode_id"]

    async def recommend(self, episode_id: str, maze_state: Any, **params: Any) -> dict[str, Any]:
        """The recommendation for ``maze_state`` (its JSON data form) in episode ``episode_id``.

        Args:
            episode_id: An open episode.
            maze_state: The state (see ``agent_service.state_data.state_to_json``).
            **params: ``k``, ``horizon``, ``n_rollouts``, ``seed``, ``time_budget_s``.

        Raises:
            httpx.HTTPStatusError: The service refused the request.
        """
        return await self.post(f"/episodes/{episode_id}/recommend", {"maze_state": maze_state, **params})

    async def drive_episode(
        self,
        episode_id: str,
        seed: int,
        env_id: str = "CartPole-v1",
        max_steps: Optional[int] = None,
        deadline: Optional[float] = None,
    ) -> EpisodeResult:
        """Plays the open episode ``episode_id`` on a fresh ``env_id`` reset with ``seed``, until it ends.

        Args:
            episode_id: The episode (from :meth:`start_episode`).
            seed: The env's reset seed.
            env_id: The gymnasium env the client owns.
            max_steps: Cut the episode short (``close`` as truncated) after this many actions; None: the env decides.
            deadline: Cut the episode short once ``time.perf_counter()`` passes this (None: never).
        """
        env = gym.make(env_id)
        result = EpisodeResult(seed)
        state, _ = env.reset(seed=seed)
        reward, terminated, truncated = 0.0, False, False
        while not (terminated or truncated):
            cut = len(result.actions) == max_steps or (deadline is not None and time.perf_counter() >= deadline)
            if cut and result.actions:  # an episode can only be closed after its first act
                truncated = True
                break
            started = time.perf_counter()
            answer = await self.post(
                f"/episodes/{episode_id}/act", {"observation": state.tolist(), "reward": float(reward)}
            )
            result.act_seconds.append(time.perf_counter() - started)
            result.actions.append(answer["action"])
            state, reward, terminated, truncated, _ = env.step(answer["action"])
            result.episode_return += float(reward)
        final = {
            "observation": state.tolist(),
            "reward": float(reward),
            "terminated": terminated,
            "truncated": truncated,
        }
        result.summary = await self.post(f"/episodes/{episode_id}/close", final)
        env.close()
        return result

    async def play_episode(
        self,
        seed: int,
        env_id: str = "CartPole-v1",
        max_steps: Optional[int] = None,
        deadline: Optional[float] = None,
    ) -> EpisodeResult:
        """Starts an episode and plays it to its end (see :meth:`drive_episode`)."""
        return await self.drive_episode(await self.start_episode(seed), seed, env_id, max_steps, deadline)
