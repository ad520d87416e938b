"""``POST /episodes/{id}/recommend``: the policy's top-k candidates in a MazeState, each with a forecast.

A recommendation rolls clones of the env forward (``AgentDeployment.recommend``) and takes
far longer than an act (tens of milliseconds to the wall-clock budget). So that it never
holds up other requests, it runs in threads of its own (``--recommend-threads``), never in
the workers that serve acts; at most ``--max-recommendations`` are in progress (computing or
waiting for a thread) at a time, more get 503. Its size is bounded by the service's settings
(``k``, ``horizon``, ``n_rollouts``) and its wall-clock time by ``--recommend-budget`` (a
request may ask for less): rollouts still running at the budget are left out, and the answer
says how many finished (``rollouts_finished``, ``timed_out``).

The request carries the env's MazeState in its data form (:mod:`agent_service.state_data`;
for a gymnasium env, the observation), the answer is ``Recommendation.to_dict()``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from maze.deploy.errors import (
    ConcurrentUseError,
    DeploymentError,
    DeploymentOrderError,
    ObservationOutsideSpaceError,
    WrapperStackError,
)
from maze.env.core.mixins import SimulatedEnvMixin
from maze.env.errors import ConfigurationError, SimulationUnsupportedError

from .episodes import Episode
from .errors import ServiceError
from .schema import RecommendRequest, parse_body
from .settings import ServiceSettings

__all__ = ["Recommender"]

_BOUNDS = {
    "k": ("max_recommend_k", "--max-recommend-k", "MAZE_SERVICE_MAX_RECOMMEND_K"),
    "horizon": ("max_recommend_horizon", "--max-recommend-horizon", "MAZE_SERVICE_MAX_RECOMMEND_HORIZON"),
    "n_rollouts": ("max_recommend_rollouts", "--max-recommend-rollouts", "MAZE_SERVICE_MAX_RECOMMEND_ROLLOUTS"),
}
"""Request field -> (setting, flag, environment variable) of its upper bound."""


class Recommender:
    """Computes recommendations in threads of their own, bounded in number, size and time.

    Args:
        settings: The bounds and the threads.
        core_env: The served env's core env (it tells whether the env can simulate).
        decode_state: ``(json value, field) -> MazeState``; raises :class:`ServiceError` (422).
        max_state_values: The most JSON values a state takes (bounds the body before parsing).
    """

    def __init__(
        self,
        settings: ServiceSettings,
        core_env: Any,
        decode_state: Callable[[Any, str], Any],
        max_state_values: int,
    ) -> None:
        self.settings = settings
        self.simulates = isinstance(core_env, SimulatedEnvMixin)
        self.env_kind = type(core_env).__name__
        self.decode_state = decode_state
        self.max_values = max_state_values + 64
        self.in_progress = 0
        self.threads = ThreadPoolExecutor(settings.recommend_threads, thread_name_prefix="agent-service-recommend")

    def unsupported(self) -> ServiceError:
        """The 501 of a service whose env cannot simulate."""
        return ServiceError(
            501,
            f"this service's env ({self.env_kind}) cannot simulate, so it makes no recommendations: its core env needs "
            "the SimulatedEnvMixin (clone_from, set_maze_state); act works as before",
        )

    def enter(self) -> None:
        """Counts a recommendation in (on the event loop, before any await).

        Raises:
            ServiceError: 501 when the env cannot simulate, 503 when ``max_recommendations`` are in progress.
        """
        if not self.simulates:
            raise self.unsupported()
        if self.in_progress >= self.settings.max_recommendations:
            raise ServiceError(
                503,
                f"{self.settings.max_recommendations} recommendations are in progress, the most this service computes "
                "at a time (--max-recommendations); retry shortly",
            )
        self.in_progress += 1

    def leave(self) -> None:
        """Counts a recommendation out."""
        self.in_progress -= 1

    def recommend(self, episode: Episode, body: bytes) -> dict[str, Any]:
        """(Recommendation thread.) ``Recommendation.to_dict()`` of ``episode``'s deployment for the request ``body``.

        Raises:
            ServiceError: 400/413/422 for a bad body, a bound passed or a state that does not fit the env;
                409 while the episode's deployment serves another request (one request per episode at a time);
                500 when the policy or the simulation fails; 501 for an env that cannot simulate.
        """
        request = parse_body(RecommendRequest, body, self.max_values)
        self._check_bounds(request)
        maze_state = self.decode_state(request.maze_state, "maze_state")
        budget = self.settings.recommend_budget_s
        if request.time_budget_s is not None:
            budget = min(budget, request.time_budget_s)
        try:
            recommendation = episode.deployment.recommend(
                maze_state,
                k=request.k,
                horizon=request.horizon,
                n_rollouts=request.n_rollouts,
                seed=request.seed,
                time_budget_s=budget,
            )
        except SimulationUnsupportedError as error:
            raise ServiceError(501, f"{self.unsupported().message} ({error})") from None
        except (ConcurrentUseError, DeploymentOrderError) as error:
            raise ServiceError(409, f"episode {episode.episode_id!r}: {error}", "episode_id") from None
        except (ObservationOutsideSpaceError, WrapperStackError) as error:
            raise ServiceError(422, f"maze_state: {error}", "maze_state") from None
        except DeploymentError as error:
            raise ServiceError(500, f"the recommendation failed: {error}") from None
        except ConfigurationError as error:
            raise ServiceError(500, f"the service cannot simulate its env: {error}") from None
        except ValueError as error:  # the env refused the state (set_maze_state)
            raise ServiceError(422, f"maze_state: {error}", "maze_state") from None
        return recommendation.to_dict()

    def _check_bounds(self, request: RecommendRequest) -> None:
        for name, (setting, flag, variable) in _BOUNDS.items():
            bound = getattr(self.settings, setting)
            value = getattr(request, name)
            if value > bound:
                raise ServiceError(
                    422, f"{name}: must be at most {bound}, got {value} (this service's {flag}, {variable})", name
                )

    def shutdown(self) -> None:
        """Drops queued recommendations; running ones finish in their threads."""
        self.threads.shutdown(wait=False, cancel_futures=True)
