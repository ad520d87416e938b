"""The FastAPI app: start, act in and close episodes of an exported policy; health and metrics.

Routes (JSON in and out; every refusal is ``{"error": ..., "field": ...}`` with a 4xx):

* ``POST /episodes`` ``{"seed": 7}`` (body optional) -> 201 ``{"episode_id": ..., "idle_timeout_s": ...}``
* ``POST /episodes/{episode_id}/act`` ``{"observation": [...], "reward": 1.0, "info": {}}``
  -> ``{"action": ..., "step": n}``; the first act's reward is ignored (no step led there)
* ``POST /episodes/{episode_id}/close`` ``{"observation": [...], "reward": 1.0, "terminated": true,
  "truncated": false}`` -> the episode's summary (steps, return, outcome)
* ``POST /episodes/{episode_id}/recommend`` ``{"maze_state": ..., "k": 3, "horizon": 20, "n_rollouts": 4, "seed": 0}``
  -> the policy's top-k candidates, each with a forecast (``Recommendation.to_dict()``; see :mod:`agent_service.recommend`)
* ``GET /health``: status, the policy, the spaces a request must fit; ``GET /metrics``: counters, latencies

A gymnasium env's state is its observation (``"observation"``); an env whose states are
Python objects (Cutting-2D) takes its MazeState in its data form (``"maze_state"``, see
:mod:`agent_service.state_data`) in acts and closes too.

The event loop only routes: a request's body is read under the limits of
:mod:`agent_service.guard`, then parsed, checked against the spaces and handed to its
episode's deployment in one of a few worker threads, so a large body or a slow policy
never holds up the other clients' requests; recommendations run in threads of their own. The episodes' bookkeeping (open, end, limits)
stays on the event loop, where no two requests change it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Optional, TypeVar

from fastapi import FastAPI, Request
from gymnasium import spaces
from maze.deploy import AgentDeployment
from maze.deploy.errors import (
    ConcurrentUseError,
    DeploymentError,
    DeploymentOrderError,
    InvalidRewardError,
    ObservationOutsideSpaceError,
    WrapperStackError,
)
from maze.env.errors import ConfigurationError
from maze.env.gym_adapter.core_env import GymCoreEnv

from .episodes import Episode, Episodes
from .errors import ServiceError, install_error_handlers
from .guard import InFlight, RequestGuard, client_of
from .metrics import Metrics, MetricsMiddleware
from .recommend import Recommender
from .schema import (
    ActRequest,
    CloseRequest,
    MazeStateActRequest,
    MazeStateCloseRequest,
    StartRequest,
    parse_body,
)
from .settings import ServiceSettings
from .spaces_json import FieldError, JsonSpace, json_values, to_json
from .state_data import DataState, state_to_json

__all__ = ["ServiceSettings", "create_app"]

Result = TypeVar("Result")

_KEEPS_EPISODE = (InvalidRewardError, DeploymentOrderError, ConcurrentUseError)
"""Deployment errors raised before anything changed: the episode goes on."""


class AgentService:
    """The service's state: the policy's spaces, the open episodes and the metrics.

    Args:
        settings: What to serve.

    Raises:
        ConfigurationError: No export in ``settings.model_dir``, or an env whose MazeState has no data form.
    """

    def __init__(self, settings: ServiceSettings) -> None:
        self.settings = settings
        probe = self._deployment()  # fails here, before the server binds, if the export is unusable
        core = probe.external_env.replaced
        self.model_id = model_id(settings.model_dir)
        if isinstance(core, GymCoreEnv):
            self.env_name = core.env.spec.id if core.env.spec is not None else type(core.env).__name__
            self.observation_space: Optional[spaces.Space] = core.env.observation_space
            self.action_space: Optional[spaces.Space] = core.env.action_space
            self.state: JsonSpace | DataState = JsonSpace(self.observation_space)
            self.state_field, self.requests = "observation", (ActRequest, CloseRequest)
            self.encode_action: Callable[[Any], Any] = to_json
            state_values = 2 * json_values(self.observation_space)
        else:
            self.env_name, self.observation_space, self.action_space = type(core).__name__, None, None
            self.state = DataState(_state_class(core))
            self.state_field, self.requests = "maze_state", (MazeStateActRequest, MazeStateCloseRequest)
            self.encode_action = state_to_json
            state_values = settings.max_state_values
        self.max_values = state_values + settings.max_info_values + 64
        """The most JSON values an act or close body may hold (a state, an info, the other fields)."""
        self.metrics = Metrics()
        self.in_flight = InFlight(settings.max_client_requests, settings.max_requests)
        self.episodes = Episodes(
            settings.idle_timeout_s, settings.max_open_episodes, settings.max_client_episodes, settings.episode_log
        )
        self.workers = ThreadPoolExecutor(settings.worker_threads, thread_name_prefix="agent-service-worker")
        self.recommender = Recommender(settings, core, self.decode_state, state_values)

    def _deployment(self) -> AgentDeployment:
        return AgentDeployment.from_run_dir(
            self.settings.model_dir, backend="onnx", deterministic=self.settings.deterministic
        )

    async def in_worker(self, function: Callable[..., Result], *args: Any) -> Result:
        """``function(*args)`` in one of the worker threads; the event loop serves other requests meanwhile."""
        return await asyncio.get_running_loop().run_in_executor(self.workers, functools.partial(function, *args))

    async def in_recommender(self, function: Callable[..., Result], *args: Any) -> Result:
        """``function(*args)`` in one of the recommendation threads (acts never wait for them)."""
        return await asyncio.get_running_loop().run_in_executor(
            self.recommender.threads, functools.partial(function, *args)
        )

    def decode_state(self, value: Any, field: str) -> Any:
        """The state of a request: the gymnasium observation, or the MazeState from its data form.

        Raises:
            ServiceError: 422 naming the field that does not fit the observation space or the state class.
        """
        try:
            return self.state.decode(value, field)
        except FieldError as error:
            raise ServiceError(422, str(error), error.field) from None

    def new_deployment(self, body: bytes) -> tuple[AgentDeployment, Optional[int]]:
        """(Worker.) The deployment of a new episode, reset with the seed of the start request ``body``, and the seed.

        Raises:
            ServiceError: 400/422 for a bad body.
        """
        request = parse_body(StartRequest, body, max_values=64, optional=True)
        seed = None if request is None else request.seed
        deployment = self._deployment()
        deployment.reset(seed=seed)
        return deployment, seed

    def act(self, episode: Episode, body: bytes) -> tuple[Any, float]:
        """(Worker.) The action (as JSON) of ``episode``'s deployment for the act request ``body``, and its reward.

        Raises:
            ServiceError: 400/422 for a bad body or a state outside the observation space.
            DeploymentError: The deployment refused or failed (see :meth:`failed`).
        """
        request = parse_body(self.requests[0], body, self.max_values)
        state = self.decode_state(getattr(request, self.state_field), self.state_field)
        action = episode.deployment.act(state, request.reward, False, request.info)
        return self.encode_action(action), request.reward

    def close(self, episode: Episode, body: bytes) -> float:
        """(Worker.) Passes the final state of the close request ``body`` to ``episode``'s deployment; its reward.

        Raises:
            ServiceError: 400/422 for a bad body or a state outside the observation space.
            DeploymentError: The deployment refused or failed (see :meth:`failed`).
        """
        request = parse_body(self.requests[1], body, self.max_values)
        state = self.decode_state(getattr(request, self.state_field), self.state_field)
        episode.deployment.close(
            state, request.reward, info=request.info, terminated=request.terminated, truncated=request.truncated
        )
        return request.reward

    def failed(self, episode: Episode, error: DeploymentError) -> ServiceError:
        """The response to a deployment error; ends the episode unless the deployment is unchanged."""
        if isinstance(error, (ObservationOutsideSpaceError, WrapperStackError)):
            status, field = 422, self.state_field
        elif isinstance(error, InvalidRewardError):
            status, field = 422, "reward"
        elif isinstance(error, (DeploymentOrderError, ConcurrentUseError)):
            status, field = 409, "episode_id"
        else:
            status, field = 500, None
        if isinstance(error, _KEEPS_EPISODE):
            return ServiceError(status, f"episode {episode.episode_id!r}: {error}", field)
        self.episodes.end(episode, "failed")
        return ServiceError(status, f"episode {episode.episode_id!r} failed and has ended: {error}", field)

    def health(self) -> dict[str, Any]:
        """What serves here and what a request must fit (no file system paths)."""
        return {
            "status": "ok",
            "model": self.model_id,
            "env": self.env_name,
            "observation_space": None if self.observation_space is None else str(self.observation_space),
            "action_space": None if self.action_space is None else str(self.action_space),
            "state": {"field": self.state_field, "class": _state_name(self.state)},
            "recommend": self.recommender.simulates,
            "deterministic": self.settings.deterministic,
            "idle_timeout_s": self.settings.idle_timeout_s,
            "open_episodes": len(self.episodes),
            "authentication": "bearer" if self.settings.token else "none",
        }

    async def expire_idle_episodes(self) -> None:
        """Ends idle episodes, checking a few times per timeout, until cancelled."""
        interval = min(max(self.settings.idle_timeout_s / 4, 0.05), 5.0)
        while True:
            await asyncio.sleep(interval)
            self.episodes.expire_idle()


def _state_class(core_env: Any) -> type:
    """The MazeState class of ``core_env`` (the class of its current state).

    Raises:
        ConfigurationError: The env gives no state to learn its class from.
    """
    try:
        state = core_env.get_maze_state()
    except Exception as error:  # noqa: BLE001 (any env code may fail; the message names it)
        raise ConfigurationError(
            f"cannot learn the MazeState class of {type(core_env).__name__}: get_maze_state() raised "
            f"{type(error).__name__}: {error}"
        ) from None
    return type(state)


def _state_name(state: JsonSpace | DataState) -> str:
    return type(state.space).__name__ if isinstance(state, JsonSpace) else state.state_class.__qualname__


def model_id(model_dir: Path) -> str:
    """Which model serves, without where it lies: a short hash of the export's metadata and ONNX files."""
    export = model_dir / "onnx" if (model_dir / "onnx").is_dir() else model_dir
    digest = hashlib.sha256()
    for path in sorted(export.iterdir()):
        if path.is_file() and (path.name == "metadata.json" or ".onnx" in path.name):
            digest.update(path.name.encode())
            with open(path, "rb") as file:
                for block in iter(functools.partial(file.read, 1 << 20), b""):
                    digest.update(block)
    return f"sha256:{digest.hexdigest()[:16]}"


def create_app(settings: ServiceSettings) -> FastAPI:
    """The service's ASGI app for ``settings`` (loads the export now).

    Raises:
        ConfigurationError: The export cannot be served (see :class:`AgentService`).
    """
    service = AgentService(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        sweeper = asyncio.create_task(service.expire_idle_episodes())
        yield
        sweeper.cancel()
        service.workers.shutdown(wait=False, cancel_futures=True)
        service.recommender.shutdown()
        service.episodes.close()

    app = FastAPI(title="maze agent service", lifespan=lifespan)
    app.state.service = service
    app.add_middleware(RequestGuard, settings=settings, in_flight=service.in_flight)
    app.add_middleware(MetricsMiddleware, metrics=service.metrics)  # outermost: counts the guard's refusals too
    install_error_handlers(app)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return service.health()

    @app.get("/metrics")
    async def metrics() -> dict[str, Any]:
        return {
            **service.metrics.snapshot(),
            "requests_in_progress": service.in_flight.count,
            "open_episodes": len(service.episodes),
            "episodes": dict(service.episodes.counts),
        }

    @app.post("/episodes", status_code=201)
    async def start(request: Request) -> dict[str, Any]:
        client = client_of(request.scope)
        service.episodes.reserve(client)  # before any await: the limits hold however many opens arrive at once
        try:
            deployment, seed = await service.in_worker(service.new_deployment, await request.body())
        except BaseException:
            service.episodes.release(client)
            raise
        episode = service.episodes.open(client, deployment, seed)
        return {"episode_id": episode.episode_id, "idle_timeout_s": settings.idle_timeout_s}

    @app.post("/episodes/{episode_id}/act")
    async def act(episode_id: str, request: Request) -> dict[str, Any]:
        started = time.perf_counter()
        episode = service.episodes.get(episode_id)
        try:
            action, reward = await service.in_worker(service.act, episode, await request.body())
        except DeploymentError as error:
            raise service.failed(episode, error) from error
        episode.record(reward)
        episode.steps += 1
        reply = {"action": action, "step": episode.steps}
        service.metrics.record_act(time.perf_counter() - started)
        return reply

    @app.post("/episodes/{episode_id}/recommend")
    async def recommend(episode_id: str, request: Request) -> dict[str, Any]:
        started = time.perf_counter()
        service.recommender.enter()  # before any await: the bound holds however many arrive at once
        try:
            episode = service.episodes.get(episode_id)
            reply = await service.in_recommender(service.recommender.recommend, episode, await request.body())
        finally:
            service.recommender.leave()
        service.metrics.recommendations.record(time.perf_counter() - started)
        return reply

    @app.post("/episodes/{episode_id}/close")
    async def close(episode_id: str, request: Request) -> dict[str, Any]:
        episode = service.episodes.get(episode_id)
        try:
            reward = await service.in_worker(service.close, episode, await request.body())
        except DeploymentError as error:
            raise service.failed(episode, error) from error
        episode.record(reward)
        return service.episodes.end(episode, "closed")

    return app
