"""AgentDeployment.recommend on the masked structured Cutting-2D env: candidates, forecasts, workers, budget, errors."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from maze.deploy import AgentDeployment, Recommendation, rollout_seed
from maze.env import DummyCartPolePolicy, GymMazeEnv
from maze.env.errors import ConfigurationError, SimulationUnsupportedError
from maze.env.examples.cutting_2d import (
    Cutting2DGreedyPolicy,
    Cutting2dKpiCalculator,
    Cutting2DMazeState,
    masked_struct_env_factory,
)
from maze.env.log_events.episode_event_log import EpisodeEventLog
from maze.env.log_events.step_event_log import StepEventLog

ENV = {"_target_": "maze.env.examples.cutting_2d.masked_struct_env_factory"}
STATE = Cutting2DMazeState([(4, 3), (2, 3), (1, 2), (2, 2), (1, 1)], 50, (1, 2), (4, 3))
"""A selection sub-step with four pieces the order (1, 2) fits into (not the 1 x 1 one)."""


@pytest.fixture(scope="module")
def agent():
    deployment = AgentDeployment(policy=Cutting2DGreedyPolicy(), env=ENV)
    yield deployment
    deployment.close_recommender()


def direct_forecast(action: dict, seed: int, horizon: int) -> tuple[float, float, int]:
    """Return, raw piece usage and invalid cuts of the candidate then the greedy policy, simulated by hand."""
    env, policy = masked_struct_env_factory(), Cutting2DGreedyPolicy()
    env.reset(seed=seed)
    env.set_maze_state(STATE)
    observation = env.observation_conversion.maze_to_space(env.get_maze_state())
    total, logs, start = 0.0, [], env.get_env_time()
    while env.get_env_time() - start < horizon:
        env_time = env.get_env_time()
        observation, reward, _, _, _ = env.step(action)
        total += reward
        logs.append(StepEventLog(env_time, list(env.get_step_events())))
        action = policy.compute_action(observation, actor_id=env.actor_id())
    kpis = Cutting2dKpiCalculator().calculate_kpis(EpisodeEventLog("direct", logs), env.get_maze_state())
    invalid = sum(1 for log in logs for event in log.events if event.interface_method.__name__ == "invalid_cut")
    return total, kpis["raw_piece_usage_per_step"], invalid


def test_three_distinct_legal_candidates_match_a_direct_simulation(agent: AgentDeployment) -> None:
    recommendation = agent.recommend(STATE, k=3, horizon=10, n_rollouts=2, seed=5)
    assert isinstance(recommendation, Recommendation) and len(recommendation) == 3
    actions = [candidate.action["piece_idx"] for candidate in recommendation]
    assert len(set(actions)) == 3
    observation = masked_struct_env_factory().observation_conversion.maze_to_space(STATE)
    assert all(observation["inventory_mask"][index] == 1 for index in actions)
    first = recommendation[0]
    assert first.is_policy_choice and first.rank == 0
    assert first.action == Cutting2DGreedyPolicy().compute_action(observation)
    assert [c.probability for c in recommendation] == sorted((c.probability for c in recommendation), reverse=True)
    for candidate in recommendation:
        runs = [direct_forecast(candidate.action, rollout_seed(5, i), 10) for i in range(2)]
        assert candidate.rollouts_finished == 2 and candidate.forecast_return.n == 2
        assert candidate.forecast_return.mean == pytest.approx(np.mean([run[0] for run in runs]))
        assert candidate.kpis["raw_piece_usage_per_step"].mean == pytest.approx(np.mean([run[1] for run in runs]))
        invalid = candidate.events.get("CuttingEvents.invalid_cut.count")  # reported only where it fired
        assert (0.0 if invalid is None else invalid.mean) == np.mean([run[2] for run in runs])
        assert candidate.events["CuttingEvents.valid_cut.count"].mean == 10
    assert recommendation.rollouts_requested == recommendation.rollouts_finished == 6
    assert not recommendation.timed_out


def test_the_forecast_is_json_data_and_the_same_for_a_seed(agent: AgentDeployment) -> None:
    first = agent.recommend(STATE, k=2, horizon=4, n_rollouts=2, seed=1).to_dict()
    second = agent.recommend(STATE, k=2, horizon=4, n_rollouts=2, seed=1).to_dict()
    first.pop("elapsed_s"), second.pop("elapsed_s")
    assert first == second
    text = json.dumps(first, allow_nan=False, sort_keys=True)
    assert json.loads(text) == first and list(first) == sorted(first)
    assert first["candidates"][0]["maze_action"] == {"piece_id": first["candidates"][0]["action"]["piece_idx"]}


def test_in_process_and_two_workers_give_identical_recommendations(agent: AgentDeployment) -> None:
    local = agent.recommend(STATE, k=3, horizon=8, n_rollouts=3, seed=2).to_dict()
    remote = agent.recommend(STATE, k=3, horizon=8, n_rollouts=3, seed=2, n_workers=2).to_dict()
    local.pop("elapsed_s"), remote.pop("elapsed_s")
    assert local == remote


def test_a_mid_step_state_recommends_cuts() -> None:
    agent = AgentDeployment(policy=Cutting2DGreedyPolicy(), env=masked_struct_env_factory())  # an instance: copied
    state = Cutting2DMazeState([(4, 3), (2, 3)], 50, (1, 2), (4, 3), selected_piece_id=1)
    recommendation = agent.recommend(state, k=3, horizon=3, n_rollouts=1)
    assert recommendation.actor_id == (1, 0) and len(recommendation) == 3
    assert all(set(candidate.action) == {"cut_rotation", "cut_order"} for candidate in recommendation)


class _SlowStep:
    """Wraps a simulation factory; every env step of its envs sleeps (the time budget test)."""

    def __call__(self):
        env = masked_struct_env_factory()
        step = env.step

        def slow_step(action):
            time.sleep(0.02)
            return step(action)

        env.step = slow_step
        return env


def test_the_time_budget_is_honoured_and_unfinished_rollouts_are_not_counted() -> None:
    agent = AgentDeployment(policy=Cutting2DGreedyPolicy(), env=ENV, simulation_env_factory=_SlowStep())
    started = time.monotonic()
    recommendation = agent.recommend(STATE, k=3, horizon=10, n_rollouts=4, time_budget_s=0.5)  # unbounded: 2.4 s
    assert time.monotonic() - started < 1.5
    assert recommendation.timed_out and recommendation.rollouts_requested == 12
    assert 0 < recommendation.rollouts_finished < 12
    assert recommendation.rollouts_finished == sum(c.rollouts_finished for c in recommendation)
    assert all(c.forecast_return.n == c.rollouts_finished for c in recommendation)


def test_an_env_without_the_simulation_mixin_is_one_clear_error() -> None:
    agent = AgentDeployment(policy=DummyCartPolePolicy(), env={"_target_": "maze.env.GymMazeEnv", "env": "CartPole-v1"})
    with pytest.raises(SimulationUnsupportedError, match=r"GymMazeEnv does not implement SimulatedEnvMixin"):
        agent.recommend(np.zeros(4, np.float32))
    agent = AgentDeployment(policy=DummyCartPolePolicy(), env=GymMazeEnv("CartPole-v1"))
    with pytest.raises(SimulationUnsupportedError, match="SimulatedMazeEnv"):
        agent.recommend(np.zeros(4, np.float32))


def test_bad_arguments_are_refused(agent: AgentDeployment) -> None:
    for arguments in ({"k": 0}, {"horizon": 0}, {"n_rollouts": 1.5}, {"seed": -1}, {"time_budget_s": 0}):
        with pytest.raises(ConfigurationError):
            agent.recommend(STATE, **arguments)


def test_recommend_leaves_the_live_episode_alone() -> None:
    env = masked_struct_env_factory()
    observation, _ = env.reset()
    agent = AgentDeployment(policy=Cutting2DGreedyPolicy(), env=ENV)
    first = agent.act(env.get_maze_state(), actor_id=env.actor_id())
    agent.recommend(STATE, k=2, horizon=3, n_rollouts=1)
    env.step({"piece_idx": first.piece_id})
    second = agent.act(env.get_maze_state(), actor_id=env.actor_id())
    assert second.piece_id == first.piece_id
