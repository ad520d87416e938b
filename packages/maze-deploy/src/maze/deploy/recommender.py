"""Recommender: a policy's top-k candidates in a MazeState, each with a forecast from simulated rollouts.

How a recommendation is made (``AgentDeployment.recommend`` calls :meth:`Recommender.recommend`):

1. A simulation env (from the deployment's ``simulation_env_factory``, a
   :class:`~maze.env.core.mixins.SimulatedEnvMixin` stack) is seeded and set to the MazeState;
   its wrapper stack makes the observation of the acting actor.
2. The policy ranks its candidates (``compute_top_action_candidates``). Only legal, distinct
   ones are kept: probability above 0 (masked policies give masked actions none) and allowed by
   any ``<head>_mask`` observation of a ``Discrete`` head; the first ``k`` remain, most likely first.
3. Every candidate gets ``n_rollouts`` rollouts (:func:`~maze.deploy.forecast.simulate`): rollout
   ``i`` of every candidate is seeded with ``rollout_seed(seed, i)`` (common random numbers), takes
   the candidate, then the policy's most likely actions, for ``horizon`` env steps.
4. ``n_workers > 0`` runs the rollouts in worker processes (a
   :class:`~maze.env.vector.subproc.SubprocVectorEnv` whose envs host a simulation env and the
   policy; kept between requests), worker ``w`` taking rollouts ``w, w + n, ...``. A rollout is
   computed by the same function with the same seed wherever it runs, so the numbers do not
   depend on ``n_workers``.
5. ``time_budget_s``: rollouts still running at the deadline are abandoned (checked every
   sub-step) and not counted; ``rollouts_finished`` and ``timed_out`` say how many finished.
"""

from __future__ import annotations

import functools
import numbers
import time
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

import numpy as np
from gymnasium import spaces
from maze.deploy.action_candidates import ActionCandidates
from maze.deploy.forecast import RolloutResult, simulate, start_simulation
from maze.deploy.policy_executor import PolicyExecutor
from maze.deploy.recommendation import CandidateForecast, Recommendation, Statistic, rollout_seed
from maze.deploy.stack import ActionPath, stack_layers
from maze.env.agent.random_policy import MASK_SUFFIX
from maze.env.core.actor import ActorID
from maze.env.core.simulation import require_simulated_env
from maze.env.errors import ConfigurationError

__all__ = ["Recommender"]

_Task = tuple[int, int, Any, int]
"""``(candidate index, rollout index, candidate action, rollout seed)``."""

_MAX_CANDIDATE_REQUEST = 256
"""The most candidates asked of a policy while looking for ``k`` legal distinct ones."""


class Recommender:
    """Computes recommendations for a policy with simulation envs built by ``simulation_env_factory``.

    Args:
        policy: The policy (must implement ``compute_top_action_candidates``).
        simulation_env_factory: Builds a simulation env stack (picklable for worker processes).
    """

    def __init__(self, policy: Any, simulation_env_factory: Callable[[], Any]) -> None:
        self.policy = policy
        self.simulation_env_factory = simulation_env_factory
        self._executor = PolicyExecutor(policy)
        self._env: Any = None
        self._pool: Any = None
        self._pool_size = 0

    def recommend(
        self,
        maze_state: Any,
        *,
        k: int = 3,
        horizon: int = 20,
        n_rollouts: int = 4,
        seed: int = 0,
        n_workers: int = 0,
        time_budget_s: Optional[float] = None,
        actor_id: Optional[ActorID] = None,
    ) -> Recommendation:
        """See :meth:`maze.deploy.agent_deployment.AgentDeployment.recommend`."""
        _check_arguments(k=k, horizon=horizon, n_rollouts=n_rollouts, seed=seed, n_workers=n_workers)
        if time_budget_s is not None and not (isinstance(time_budget_s, numbers.Real) and time_budget_s > 0):
            raise ConfigurationError(f"recommend got time_budget_s={time_budget_s!r}; use a positive number or None")
        started = time.monotonic()
        deadline = None if time_budget_s is None else time.time() + float(time_budget_s)
        env = self._simulation_env()
        observation = start_simulation(env, maze_state, seed)
        actor = env.actor_id()
        if actor_id is not None and tuple(actor_id) != tuple(actor):
            raise ConfigurationError(
                f"recommend got actor_id={tuple(actor_id)}, but in this MazeState actor {tuple(actor)} acts"
            )
        candidates = self._candidates(observation, maze_state, env, actor, k)
        path = ActionPath(stack_layers(env), type(env).__name__)
        maze_actions = [path.maze_action(action) for action, _ in candidates]
        tasks = [
            (index, rollout, action, rollout_seed(seed, rollout))
            for index, (action, _) in enumerate(candidates)
            for rollout in range(n_rollouts)
        ]
        results = self._run(tasks, maze_state, horizon, deadline, n_workers)
        forecasts = _forecasts(candidates, maze_actions, results, n_rollouts)
        finished = sum(forecast.rollouts_finished for forecast in forecasts)
        return Recommendation(
            candidates=tuple(forecasts),
            horizon=horizon,
            n_rollouts=n_rollouts,
            seed=seed,
            rollouts_requested=len(tasks),
            rollouts_finished=finished,
            timed_out=finished < len(tasks),
            elapsed_s=time.monotonic() - started,
            actor_id=(actor[0], int(actor[1])),
        )

    def close(self) -> None:
        """Stops the worker processes (a later request with workers starts new ones)."""
        pool, self._pool, self._pool_size = self._pool, None, 0
        if pool is not None:
            pool.close()

    # --- helpers ---------------------------------------------------------------------------

    def _simulation_env(self) -> Any:
        if self._env is None:
            env = self.simulation_env_factory()
            require_simulated_env(env, "AgentDeployment.recommend")
            self._env = env
        return self._env

    def _candidates(self, observation: Any, maze_state: Any, env: Any, actor: ActorID, k: int) -> list[tuple]:
        """Up to ``k`` legal distinct ``(action, probability)`` pairs, most likely first (at least the first choice)."""
        space = env.action_spaces_dict[actor[0]]
        request, first = k, None
        while True:
            ranked = self._executor.compute_action(observation, maze_state, env, actor, num_candidates=request)
            assert isinstance(ranked, ActionCandidates)
            first = first or (ranked.actions[0], ranked.probabilities[0])
            chosen: list[tuple[Any, float]] = []
            for action, probability in ranked:
                if probability > 0 and _allowed(action, observation, space) and not _contains(chosen, action):
                    chosen.append((action, float(probability)))
            if len(chosen) >= k or len(ranked) < request or request >= _MAX_CANDIDATE_REQUEST:
                return chosen[:k] if chosen else [(first[0], float(first[1]))]
            request = min(request * 4, _MAX_CANDIDATE_REQUEST)

    def _run(
        self, tasks: list[_Task], maze_state: Any, horizon: int, deadline: Optional[float], n_workers: int
    ) -> dict[tuple[int, int], RolloutResult]:
        if n_workers == 0:
            return dict(run_tasks(self._simulation_env(), self._executor, tasks, maze_state, horizon, deadline))
        pool = self._workers(n_workers)
        shares = pool.call("run_recommendation_rollouts", tasks, maze_state, horizon, deadline)
        return {key: result for share in shares for key, result in share}

    def _workers(self, count: int) -> Any:
        if self._pool is None or self._pool_size != count:
            from maze.env.vector.subproc import SubprocVectorEnv

            self.close()
            self._pool = SubprocVectorEnv(
                [
                    functools.partial(_RolloutHost, self.simulation_env_factory, self.policy, index, count)
                    for index in range(count)
                ]
            )
            self._pool_size = count
        return self._pool


def run_tasks(
    env: Any, executor: PolicyExecutor, tasks: Sequence[_Task], maze_state: Any, horizon: int, deadline: Optional[float]
) -> list[tuple[tuple[int, int], RolloutResult]]:
    """Runs rollout tasks one after the other; those that miss the deadline are left out."""
    results = []
    for index, rollout, action, seed in tasks:
        result = simulate(env, executor, maze_state, action, seed, horizon, deadline)
        if result is not None:
            results.append(((index, rollout), result))
    return results


class _RolloutHost:
    """A worker's env of the SubprocVectorEnv: a simulation env plus the policy, running its share of the tasks."""

    def __init__(self, factory: Callable[[], Any], policy: Any, index: int, count: int) -> None:
        self.env = factory()
        require_simulated_env(self.env, "AgentDeployment.recommend")
        self.executor = PolicyExecutor(policy)
        self.index, self.count = index, count
        self.observation_spaces_dict = self.env.observation_spaces_dict
        self.action_spaces_dict = self.env.action_spaces_dict
        self.agent_counts_dict = self.env.agent_counts_dict

    def actor_id(self) -> ActorID:
        """The simulation env's actor (the vector env reads it once)."""
        return self.env.actor_id()

    def run_recommendation_rollouts(
        self, tasks: list[_Task], maze_state: Any, horizon: int, deadline: Optional[float]
    ) -> list[tuple[tuple[int, int], RolloutResult]]:
        """Runs tasks ``index, index + count, ...`` of ``tasks``."""
        return run_tasks(self.env, self.executor, tasks[self.index :: self.count], maze_state, horizon, deadline)

    def close(self) -> None:
        """Closes the simulation env."""
        self.env.close()


def _forecasts(
    candidates: list[tuple[Any, float]],
    maze_actions: list[Any],
    results: Mapping[tuple[int, int], RolloutResult],
    n_rollouts: int,
) -> list[CandidateForecast]:
    """One forecast per candidate; event names are the union over all rollouts (0 where an event did not fire)."""
    event_names = sorted({name for result in results.values() for name in result.events})
    kpi_names = sorted({name for result in results.values() for name in result.kpis})
    forecasts = []
    for index, (action, probability) in enumerate(candidates):
        finished = [results[(index, rollout)] for rollout in range(n_rollouts) if (index, rollout) in results]
        forecasts.append(
            CandidateForecast(
                rank=index,
                action=action,
                probability=probability,
                is_policy_choice=index == 0,
                forecast_return=Statistic.of([result.total_return for result in finished]),
                kpis={
                    name: Statistic.of([result.kpis[name] for result in finished if name in result.kpis])
                    for name in kpi_names
                },
                events={
                    name: Statistic.of([result.events.get(name, 0.0) for result in finished]) for name in event_names
                },
                rollouts_finished=len(finished),
                maze_action=maze_actions[index],
            )
        )
    return forecasts


def _allowed(action: Any, observation: Any, space: Any) -> bool:
    """False when a ``<head>_mask`` observation forbids the action of a Discrete head."""
    if not isinstance(action, Mapping) or not isinstance(observation, Mapping) or not isinstance(space, spaces.Dict):
        return True
    for head, value in action.items():
        mask = observation.get(f"{head}{MASK_SUFFIX}")
        sub = space.spaces.get(head)
        if isinstance(sub, spaces.Discrete) and mask is not None and np.shape(mask) == (sub.n,):
            position = int(np.asarray(value).item()) - int(sub.start)
            if not 0 <= position < sub.n or np.asarray(mask)[position] == 0:
                return False
    return True


def _contains(chosen: list[tuple[Any, float]], action: Any) -> bool:
    return any(_same_action(action, other) for other, _ in chosen)


def _same_action(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same_action(a[key], b[key]) for key in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


def _check_arguments(**values: Any) -> None:
    minimum = {"k": 1, "horizon": 1, "n_rollouts": 1, "seed": 0, "n_workers": 0}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum[name]:
            raise ConfigurationError(f"recommend got {name}={value!r}; use an int >= {minimum[name]}")
