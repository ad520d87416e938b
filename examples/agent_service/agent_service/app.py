"""The FastAPI app: start, act in and close episodes of an exported policy; health and metrics.

Routes (JSON in and out; every refusal is ``{"error": ..., "field": ...}`` with a 4xx):

* ``POST /episodes`` ``{"seed": 7}`` (body optional) -> 201 ``{"episode_id": ..., "idle_timeout_s": ...}``
* ``POST /episodes/{episode_id}/act`` ``{"observation": [...], "reward": 1.0, "info": {}}``
  -> ``{"action": ..., "step": n}``; the first act's reward is ignored (no step led there)
* ``POST /episodes/{episode_id}/close`` ``{"observation": [...], "reward": 1.0, "terminated": true,
  "truncated": false}`` -> the episode's summary (steps, return, outcome)
* ``GET /health``: status, the policy, the spaces a request must fit; ``GET /metrics``: counters, latencies

Handlers are coroutines that call the deployments directly on the event loop: an act of a
small policy takes tens of microseconds, less than handing it to a thread would, and one
episode's requests never run at the same time.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

from fastapi import Body, FastAPI
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
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from .episodes import Episode, Episodes
from .errors import ServiceError, install_error_handlers
from .metrics import Metrics, MetricsMiddleware
from .spaces_json import FieldError, JsonSpace, to_json

__all__ = ["ServiceSettings", "create_app"]

FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]


@dataclass(frozen=True)
class ServiceSettings:
    """What the service serves and how.

    Attributes:
        model_dir: The ONNX export (``<run dir>/onnx``) or the run directory holding it.
        idle_timeout_s: An open episode without a request for this long expires.
        max_open_episodes: At most this many episodes are open at a time (more: 503).
        deterministic: Take the most likely action; False samples (seeded by the episode's seed).
        episode_log: Where ended episodes are appended as JSON lines (None: nowhere).
    """

    model_dir: Path
    idle_timeout_s: float = 300.0
    max_open_episodes: int = 10_000
    deterministic: bool = True
    episode_log: Optional[Path] = None


class StartRequest(BaseModel):
    """``POST /episodes``: the seed of the policy's sampling and of the stack's reset (None: unseeded)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    seed: Optional[Annotated[int, Field(ge=0)]] = None


class ActRequest(BaseModel):
    """``POST /episodes/{id}/act``: the env's current state and the reward of the step that led to it."""

    model_config = ConfigDict(extra="forbid", strict=True)
    observation: JsonValue
    reward: FiniteFloat = 0.0
    info: dict[str, JsonValue] = Field(default_factory=dict)


class CloseRequest(ActRequest):
    """``POST /episodes/{id}/close``: the final state; neither flag set means the caller cut the episode short."""

    terminated: bool = False
    truncated: bool = False


_KEEPS_EPISODE = (InvalidRewardError, DeploymentOrderError, ConcurrentUseError)
"""Deployment errors raised before anything changed: the episode goes on."""


class AgentService:
    """The service's state: the policy's spaces, the open episodes and the metrics.

    Args:
        settings: What to serve.

    Raises:
        ConfigurationError: No export in ``settings.model_dir``, or an env whose states are no gymnasium observations.
    """

    def __init__(self, settings: ServiceSettings) -> None:
        self.settings = settings
        probe = self._deployment()  # fails here, before the server binds, if the export is unusable
        core = probe.external_env.replaced
        if not isinstance(core, GymCoreEnv):
            raise ConfigurationError(
                f"the reference service serves envs whose states and actions are gymnasium space elements "
                f"(GymMazeEnv); the export's env is {type(core).__name__}: give it its own request schema"
            )
        self.env_name = core.env.spec.id if core.env.spec is not None else type(core.env).__name__
        self.observation_space: spaces.Space = core.env.observation_space
        self.action_space: spaces.Space = core.env.action_space
        self.state = JsonSpace(self.observation_space)
        self.metrics = Metrics()
        self.episodes = Episodes(
            self._deployment, settings.idle_timeout_s, settings.max_open_episodes, settings.episode_log
        )

    def _deployment(self) -> AgentDeployment:
        return AgentDeployment.from_run_dir(
            self.settings.model_dir, backend="onnx", deterministic=self.settings.deterministic
        )

    def decode_state(self, observation: Any) -> Any:
        """The state of a request (the gymnasium observation).

        Raises:
            ServiceError: 422 naming the field that does not fit the observation space.
        """
        try:
            return self.state.decode(observation, "observation")
        except FieldError as error:
            raise ServiceError(422, str(error), error.field) from None

    def failed(self, episode: Episode, error: DeploymentError) -> ServiceError:
        """The response to a deployment error; ends the episode unless the deployment is unchanged."""
        if isinstance(error, (ObservationOutsideSpaceError, WrapperStackError)):
            status, field = 422, "observation"
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
        """What serves here and what a request must fit."""
        return {
            "status": "ok",
            "model_dir": str(self.settings.model_dir),
            "env": self.env_name,
            "observation_space": str(self.observation_space),
            "action_space": str(self.action_space),
            "deterministic": self.settings.deterministic,
            "idle_timeout_s": self.settings.idle_timeout_s,
            "open_episodes": len(self.episodes),
        }

    async def expire_idle_episodes(self) -> None:
        """Ends idle episodes, checking a few times per timeout, until cancelled."""
        interval = min(max(self.settings.idle_timeout_s / 4, 0.05), 5.0)
        while True:
            await asyncio.sleep(interval)
            self.episodes.expire_idle()


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
        service.episodes.close()

    app = FastAPI(title="maze agent service", lifespan=lifespan)
    app.state.service = service
    app.add_middleware(MetricsMiddleware, metrics=service.metrics)
    install_error_handlers(app)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return service.health()

    @app.get("/metrics")
    async def metrics() -> dict[str, Any]:
        return {
            **service.metrics.snapshot(),
            "open_episodes": len(service.episodes),
            "episodes": dict(service.episodes.counts),
        }

    @app.post("/episodes", status_code=201)
    async def start(request: Annotated[Optional[StartRequest], Body()] = None) -> dict[str, Any]:
        episode = service.episodes.start(None if request is None else request.seed)
        return {"episode_id": episode.episode_id, "idle_timeout_s": settings.idle_timeout_s}

    @app.post("/episodes/{episode_id}/act")
    async def act(episode_id: str, request: ActRequest) -> dict[str, Any]:
        started = time.perf_counter()
        episode = service.episodes.get(episode_id)
        state = service.decode_state(request.observation)
        try:
            action = episode.deployment.act(state, request.reward, False, request.info)
        except DeploymentError as error:
            raise service.failed(episode, error) from error
        episode.record(request.reward)
        episode.steps += 1
        reply = {"action": to_json(action), "step": episode.steps}
        service.metrics.record_act(time.perf_counter() - started)
        return reply

    @app.post("/episodes/{episode_id}/close")
    async def close(episode_id: str, request: CloseRequest) -> dict[str, Any]:
        episode = service.episodes.get(episode_id)
        state = service.decode_state(request.observation)
        try:
            episode.deployment.close(
                state, request.reward, info=request.info, terminated=request.terminated, truncated=request.truncated
            )
        except DeploymentError as error:
            raise service.failed(episode, error) from error
        episode.record(request.reward)
        return service.episodes.end(episode, "closed")

    return app
