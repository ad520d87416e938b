"""The thermostat as a simulation: check_simulated_env and a clone that must not share the weather generator."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from maze.env.testing import check_simulated_env

HERE = Path(__file__).resolve().parent


@pytest.fixture
def thermostat_env(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The example's ``thermostat.env`` module (imported from this folder, as the README's commands do)."""
    monkeypatch.syspath_prepend(str(HERE))
    return importlib.import_module("thermostat.env")


def test_the_thermostat_passes_the_simulation_checker(thermostat_env: ModuleType) -> None:
    check_simulated_env(thermostat_env.make_thermostat_env())


def test_set_maze_state_takes_the_room_and_the_step(thermostat_env: ModuleType) -> None:
    env = thermostat_env.make_thermostat_env()
    env.reset(seed=3)
    state = thermostat_env.RoomState(room=15.0, outdoor=5.0, setpoint=21.0, step=10)
    env.set_maze_state(state)
    assert env.get_maze_state() == state and env.get_env_time() == 10
    _, _, _, truncated, _ = env.step({"power": [1.0]})
    assert env.get_maze_state().room == pytest.approx(15.0 + 0.1 * (5.0 - 15.0) + 3.0) and not truncated


def test_the_checker_catches_a_clone_that_shares_the_weather_generator(thermostat_env: ModuleType) -> None:
    class SharingCore(thermostat_env.ThermostatCoreEnv):
        def clone_from(self, env) -> None:
            super().clone_from(env)
            self.rng = env.rng  # the bug: the clone's weather draws advance the original's

    def factory():
        env = thermostat_env.make_thermostat_env()
        env.core_env.__class__ = SharingCore
        return env

    with pytest.raises(AssertionError, match="independence"):
        check_simulated_env(factory(), make_env=factory)


class ThreeLevelPolicy:
    """Heat, hold or cool at full power; ranks the three by how close they bring the room to its setpoint."""

    LEVELS = (-1.0, 0.0, 1.0)

    def _scores(self, observation) -> np.ndarray:
        (_, to_setpoint), (to_outdoor,) = observation["room"], observation["weather"]
        wanted = (to_setpoint - 0.1 * to_outdoor) / 3.0
        return -np.abs(np.array(self.LEVELS) - wanted)

    def compute_top_action_candidates(self, observation, num_candidates, maze_state=None, env=None, actor_id=None):
        scores = self._scores(observation)
        order = np.argsort(-scores, kind="stable")[:num_candidates]
        probabilities = np.exp(scores - scores.max())
        probabilities /= probabilities.sum()
        return [{"power": np.array([self.LEVELS[i]], np.float32)} for i in order], [probabilities[i] for i in order]

    def compute_action(self, observation, maze_state=None, env=None, actor_id=None, deterministic=False):
        actions, _ = self.compute_top_action_candidates(observation, 1)
        return actions[0]


def test_recommend_forecasts_energy_and_comfort_for_three_candidates(thermostat_env: ModuleType) -> None:
    from maze.deploy import AgentDeployment
    from maze.env.agent.policy import Policy

    policy = type("ThreeLevel", (ThreeLevelPolicy, Policy), {})()
    agent = AgentDeployment(policy=policy, env=thermostat_env.make_thermostat_env())
    state = thermostat_env.RoomState(room=14.0, outdoor=4.0, setpoint=21.0, step=5)
    recommendation = agent.recommend(state, k=3, horizon=12, n_rollouts=4, seed=7)
    assert [float(c.action["power"][0]) for c in recommendation] == [1.0, 0.0, -1.0]  # a cold room: heat first
    for candidate in recommendation:
        assert set(candidate.kpis) == {"mean_abs_deviation", "comfort_share"}
        assert candidate.events["ThermostatEvents.energy.count"].mean == 12
        assert candidate.forecast_return.n == 4 and candidate.forecast_return.std > 0  # the weather drifts
    energy = [c.events["ThermostatEvents.energy.kwh.sum"].mean for c in recommendation]
    assert energy[1] < energy[0]  # holding spends less than heating
    deviation = [c.kpis["mean_abs_deviation"].mean for c in recommendation]
    assert deviation[0] < deviation[1] < deviation[2]  # heating helps, cooling hurts
    again = agent.recommend(state, k=3, horizon=12, n_rollouts=4, seed=7).to_dict()
    first = recommendation.to_dict()
    first.pop("elapsed_s"), again.pop("elapsed_s")
    assert first == again
    other = agent.recommend(state, k=3, horizon=12, n_rollouts=4, seed=8).to_dict()
    assert other["candidates"][0]["forecast_return"] != first["candidates"][0]["forecast_return"]
