"""The thermostat simulation (a CoreEnv), its spaces (a MazeEnv) and the factory the configs name.

A room loses heat to (or gains it from) the outdoors and is heated or cooled by a heat pump:
``room <- room + leak * (outdoor - room) + gain * power`` with ``power`` in ``[-1, 1]``
(negative: cooling). Each episode draws the outdoor temperature, the setpoint and the room's
start temperature; the outdoor temperature then drifts. The reward of a step is
``-(|room - setpoint| + energy_price * |power|)``, so a good controller reaches the setpoint
quickly and then holds it with as little power as the weather allows. Episodes are truncated
after ``episode_steps`` steps (a time limit: there is no terminal state).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from maze.env.core.conversion import ActionConversionInterface, ObservationConversionInterface
from maze.env.core.core_env import CoreEnv
from maze.env.core.events import Pubsub
from maze.env.core.maze_env import MazeEnv
from maze.env.core.mixins import SimulatedEnvMixin
from maze.env.core.simulation import SimulatedMazeEnv

from thermostat.events import ThermostatEvents, ThermostatKpiCalculator

__all__ = ["RoomState", "HeatPumpSetting", "ThermostatCoreEnv", "ThermostatEnv", "make_thermostat_env"]

TEMPERATURE_RANGE = (-30.0, 60.0)
"""Bounds of every temperature in the observation (°C); the simulation stays well inside them."""


@dataclass(frozen=True)
class RoomState:
    """The MazeState: temperatures in °C and the steps taken in the episode."""

    room: float
    outdoor: float
    setpoint: float
    step: int


@dataclass(frozen=True)
class HeatPumpSetting:
    """The MazeAction: heat pump power in ``[-1, 1]`` (negative: cooling)."""

    power: float


class ThermostatCoreEnv(CoreEnv, SimulatedEnvMixin):
    """The simulation; as a :class:`SimulatedEnvMixin` it can copy another room or start from a :class:`RoomState`.

    Args:
        episode_steps: Steps per episode.
        leak: Share of the room-outdoor temperature difference lost per step.
        gain: Temperature change per step at full power (°C).
        energy_price: Reward cost of one step at full power.
    """

    def __init__(
        self, episode_steps: int = 48, leak: float = 0.1, gain: float = 3.0, energy_price: float = 0.1
    ) -> None:
        super().__init__()
        self.episode_steps = episode_steps
        self.leak = leak
        self.gain = gain
        self.energy_price = energy_price
        self.events = Pubsub(self.context.event_service).create_event_topic(ThermostatEvents)
        self.kpi_calculator = ThermostatKpiCalculator()
        self.rng = np.random.default_rng()
        self.state = self._new_episode()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[RoomState, dict]:
        """A new day: new weather, setpoint and start temperature (``seed`` re-seeds the simulation)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.state = self._new_episode()
        return self.state, {}

    def step(self, maze_action: HeatPumpSetting) -> tuple[RoomState, float, bool, bool, dict]:
        """Runs the heat pump for one step, fires the step's events and returns the new state."""
        state, power = self.state, maze_action.power
        room = state.room + self.leak * (state.outdoor - state.room) + self.gain * power
        outdoor = state.outdoor + float(self.rng.normal(0.0, 0.3))
        self.state = RoomState(room=room, outdoor=outdoor, setpoint=state.setpoint, step=state.step + 1)
        deviation = abs(room - state.setpoint)
        self.events.deviation(celsius=deviation)
        self.events.energy(kwh=abs(power))
        reward = -(deviation + self.energy_price * abs(power))
        return self.state, reward, False, self.state.step >= self.episode_steps, {}

    def get_maze_state(self) -> RoomState:
        """The current state."""
        return self.state

    def get_kpi_calculator(self) -> ThermostatKpiCalculator:
        """Computes ``mean_abs_deviation`` and ``comfort_share``."""
        return self.kpi_calculator

    def close(self) -> None:
        """Nothing to release."""

    def clone_from(self, env: Any) -> None:
        """Copies the state and the weather generator's state of ``env`` (a ThermostatCoreEnv with the same parameters).

        Raises:
            ValueError: ``env`` is of another class or has other parameters.
        """
        if type(env) is not type(self) or env.parameters() != self.parameters():
            raise ValueError(f"{type(self).__name__}.clone_from needs a {type(self).__name__} with {self.parameters()}")
        self.state = env.state  # frozen: sharing it is safe
        self.rng = copy.deepcopy(env.rng)
        self.context.step_id = env.context.step_id

    def set_maze_state(self, maze_state: RoomState) -> None:
        """Continues from ``maze_state`` (its ``step`` becomes the env time); the weather generator is left as it is.

        Raises:
            ValueError: ``maze_state`` is no RoomState.
        """
        if not isinstance(maze_state, RoomState):
            raise ValueError(f"ThermostatCoreEnv.set_maze_state takes a RoomState, got {type(maze_state).__name__}")
        self.state = maze_state
        self.context.step_id = maze_state.step

    def parameters(self) -> tuple[int, float, float, float]:
        """``(episode_steps, leak, gain, energy_price)``."""
        return self.episode_steps, self.leak, self.gain, self.energy_price

    def _new_episode(self) -> RoomState:
        return RoomState(
            room=float(self.rng.uniform(10.0, 30.0)),
            outdoor=float(self.rng.uniform(0.0, 30.0)),
            setpoint=float(self.rng.uniform(18.0, 24.0)),
            step=0,
        )


def _temperatures(size: int) -> spaces.Box:
    return spaces.Box(*TEMPERATURE_RANGE, shape=(size,), dtype=np.float32)


class ThermostatObservation(ObservationConversionInterface):
    """What the controller sees, in °C.

    ``room``: the room temperature and ``setpoint - room``; ``weather``: ``outdoor - room``. The
    differences are what the decision depends on (the guide's "When training does not learn", point 4).

    Args:
        absolute_temperatures: Observe the three temperatures as they are instead (``room``: room
            temperature and setpoint; ``weather``: outdoor temperature), for the README's comparison.
    """

    def __init__(self, absolute_temperatures: bool = False) -> None:
        self.absolute_temperatures = absolute_temperatures

    def maze_to_space(self, maze_state: RoomState) -> dict[str, np.ndarray]:
        """The observation of ``maze_state`` (new arrays every call)."""
        room, setpoint, outdoor = maze_state.room, maze_state.setpoint, maze_state.outdoor
        if self.absolute_temperatures:
            return {"room": np.array([room, setpoint], np.float32), "weather": np.array([outdoor], np.float32)}
        return {
            "room": np.array([room, setpoint - room], np.float32),
            "weather": np.array([outdoor - room], np.float32),
        }

    def space(self) -> spaces.Dict:
        """``room (2,)``, ``weather (1,)``, both in :data:`TEMPERATURE_RANGE`."""
        return spaces.Dict({"room": _temperatures(2), "weather": _temperatures(1)})


class ThermostatAction(ActionConversionInterface):
    """``{"power": Box(-1, 1, (1,))}`` -> :class:`HeatPumpSetting` (clipped: Gaussian policies overshoot)."""

    def space_to_maze(self, action: dict[str, Any], maze_state: RoomState) -> HeatPumpSetting:
        """The MazeAction of ``action``."""
        return HeatPumpSetting(power=float(np.clip(np.asarray(action["power"]).item(), -1.0, 1.0)))

    def space(self) -> spaces.Dict:
        """The action space."""
        return spaces.Dict({"power": spaces.Box(-1.0, 1.0, shape=(1,), dtype=np.float32)})


class ThermostatEnv(SimulatedMazeEnv, MazeEnv[ThermostatCoreEnv]):
    """The MazeEnv: a flat env, one observation and one action conversion under sub-step key 0."""

    def __init__(self, core_env: ThermostatCoreEnv, absolute_temperatures: bool = False) -> None:
        super().__init__(
            core_env=core_env,
            action_conversion_dict={0: ThermostatAction()},
            observation_conversion_dict={0: ThermostatObservation(absolute_temperatures)},
        )


def make_thermostat_env(
    episode_steps: int = 48,
    leak: float = 0.1,
    gain: float = 3.0,
    energy_price: float = 0.1,
    absolute_temperatures: bool = False,
) -> ThermostatEnv:
    """The factory ``conf/env/thermostat.yaml`` names (arguments as for :class:`ThermostatCoreEnv` and
    :class:`ThermostatObservation`)."""
    return ThermostatEnv(ThermostatCoreEnv(episode_steps, leak, gain, energy_price), absolute_temperatures)
