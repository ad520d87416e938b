"""What the service serves and the limits that keep one client from stalling or starving the others.

Every limit has a command-line flag and an environment variable (the flag wins); the
bearer token comes from the environment only (``MAZE_SERVICE_TOKEN``), so that it never
shows in a process list.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

__all__ = ["LIMIT_ENV", "RECOMMEND_BUDGET_ENV", "TOKEN_ENV", "ServiceSettings", "budget_from_env", "limit_from_env"]

TOKEN_ENV = "MAZE_SERVICE_TOKEN"
"""When set (not empty), every route but ``/health`` needs ``Authorization: Bearer <token>``."""

LIMIT_ENV = {
    "max_body_bytes": "MAZE_SERVICE_MAX_BODY_BYTES",
    "max_client_requests": "MAZE_SERVICE_MAX_CLIENT_REQUESTS",
    "max_requests": "MAZE_SERVICE_MAX_REQUESTS",
    "max_open_episodes": "MAZE_SERVICE_MAX_OPEN_EPISODES",
    "max_client_episodes": "MAZE_SERVICE_MAX_CLIENT_EPISODES",
    "max_info_values": "MAZE_SERVICE_MAX_INFO_VALUES",
    "worker_threads": "MAZE_SERVICE_WORKER_THREADS",
    "max_state_values": "MAZE_SERVICE_MAX_STATE_VALUES",
    "recommend_threads": "MAZE_SERVICE_RECOMMEND_THREADS",
    "max_recommendations": "MAZE_SERVICE_MAX_RECOMMENDATIONS",
    "max_recommend_k": "MAZE_SERVICE_MAX_RECOMMEND_K",
    "max_recommend_horizon": "MAZE_SERVICE_MAX_RECOMMEND_HORIZON",
    "max_recommend_rollouts": "MAZE_SERVICE_MAX_RECOMMEND_ROLLOUTS",
}
"""The environment variable of each integer limit of :class:`ServiceSettings`."""

RECOMMEND_BUDGET_ENV = "MAZE_SERVICE_RECOMMEND_BUDGET_S"
"""The wall-clock budget of one recommendation in seconds (a float)."""


@dataclass(frozen=True)
class ServiceSettings:
    """What the service serves and how.

    A client is one peer address: every connection from the same host counts against the
    same per-client limits (behind a proxy, all requests come from the proxy's address).

    Attributes:
        model_dir: The ONNX export (``<run dir>/onnx``) or the run directory holding it.
        idle_timeout_s: An open episode without a request for this long expires.
        max_open_episodes: At most this many episodes are open at a time, of all clients (more: 503).
        max_client_episodes: At most this many episodes of one client are open at a time (more: 429).
        max_body_bytes: A larger request body is refused with 413 before any of it is parsed.
        max_info_values: The most JSON values a request's ``info`` may take; a body with more values than that
            and twice a state of the observation space is refused with 413 before it is parsed.
        max_client_requests: Requests of one client in progress at a time (more: 429).
        max_requests: Requests of all clients in progress at a time (more: 503).
        worker_threads: Threads that parse request bodies and run the deployments, off the event loop.
        body_timeout_s: A request body that has not fully arrived after this long is refused (408).
        max_state_values: The most JSON values a ``maze_state`` may hold (envs whose states are no observations).
        recommend_threads: Recommendations computed at a time, in threads of their own (acts never wait for them).
        max_recommendations: Recommendations in progress (computing or waiting for a thread) of all clients (more: 503).
        max_recommend_k: The most candidates a recommendation may ask for.
        max_recommend_horizon: The most steps a recommendation's rollouts may take.
        max_recommend_rollouts: The most rollouts per candidate a recommendation may ask for.
        recommend_budget_s: The wall-clock budget of one recommendation; a request may ask for less, never more.
        deterministic: Take the most likely action; False samples (seeded by the episode's seed).
        episode_log: Where ended episodes are appended as JSON lines (None: nowhere).
        token: The bearer token every route but ``/health`` requires (None: no authentication).
    """

    model_dir: Path
    idle_timeout_s: float = 300.0
    max_open_episodes: int = 10_000
    max_client_episodes: int = 1_000
    max_body_bytes: int = 1 << 20
    max_info_values: int = 10_000
    max_client_requests: int = 64
    max_requests: int = 256
    worker_threads: int = 4
    body_timeout_s: float = 30.0
    max_state_values: int = 10_000
    recommend_threads: int = 2
    max_recommendations: int = 8
    max_recommend_k: int = 8
    max_recommend_horizon: int = 200
    max_recommend_rollouts: int = 16
    recommend_budget_s: float = 10.0
    deterministic: bool = True
    episode_log: Optional[Path] = None
    token: Optional[str] = None

    def __post_init__(self) -> None:
        for name in LIMIT_ENV:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not 0 < self.recommend_budget_s < float("inf"):
            raise ValueError(
                f"recommend_budget_s must be a positive number of seconds, got {self.recommend_budget_s!r}"
            )


def limit_from_env(name: str, environ: Optional[Mapping[str, str]] = None) -> int:
    """The integer limit ``name`` from its environment variable, else the dataclass default.

    Raises:
        ValueError: The variable holds no positive integer (naming the variable).
    """
    environ = os.environ if environ is None else environ
    variable = LIMIT_ENV[name]
    text = environ.get(variable, "").strip()
    if not text:
        return ServiceSettings.__dataclass_fields__[name].default
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise ValueError(f"{variable}={text!r} is no integer") from None
    if value < 1:
        raise ValueError(f"{variable}={text!r} must be a positive integer")
    return value


def budget_from_env(environ: Optional[Mapping[str, str]] = None) -> float:
    """The recommendation budget (seconds) from ``MAZE_SERVICE_RECOMMEND_BUDGET_S``, else the dataclass default.

    Raises:
        ValueError: The variable holds no positive finite number (naming the variable).
    """
    environ = os.environ if environ is None else environ
    text = environ.get(RECOMMEND_BUDGET_ENV, "").strip()
    if not text:
        return ServiceSettings.recommend_budget_s
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{RECOMMEND_BUDGET_ENV}={text!r} is no number") from None
    if not 0 < value < float("inf"):
        raise ValueError(f"{RECOMMEND_BUDGET_ENV}={text!r} must be a positive number of seconds")
    return value
