"""The thermostat as a simulation: check_simulated_env and a clone that must not share the weather generator."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

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
